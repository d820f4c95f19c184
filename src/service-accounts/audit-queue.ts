import type { Logger } from '../logger.js'
import type { AccountUse, AuditEventType, NewAuditEvent } from './audit-event.js'
import type { AuditMetrics } from './metrics.js'
import type { ServiceAccountStore } from './store.js'

/** What waits to be written: a finished event, or a use whose address the store judges. */
export type QueuedAudit = NewAuditEvent | AccountUse

interface Entry {
  /** Enqueue order across both lists. */
  readonly order: number
  readonly item: QueuedAudit
}

export interface AuditQueueOptions {
  readonly store: Pick<ServiceAccountStore, 'appendEvents'>
  /** Most entries waiting (those being written aside). */
  readonly maxEvents: number
  /** Most entries written in one transaction. */
  readonly batchSize: number
  readonly logger: Logger
  readonly metrics?: Pick<AuditMetrics, 'dropped' | 'writeFailures'>
}

/**
 * The audit events no change carries, on their way to the store: requests only enqueue (a push
 * onto an array, never a wait), a timer writes them in batches. While the store is down they wait
 * and are written when it answers again; past `maxEvents` the oldest `refused` go first (each
 * already counts a flood of refusals), then the oldest of any kind, each counted by type. Closing
 * writes what is left, so a graceful stop loses nothing the store accepts.
 */
export class AuditQueue {
  readonly #options: AuditQueueOptions
  /** `refused` events apart, so the one to drop first is at hand. Both in enqueue order. */
  #refused: Entry[] = []
  #others: Entry[] = []
  #order = 0
  #flushing: Promise<void> | undefined
  #failing = false
  #timer: NodeJS.Timeout | undefined
  readonly #beforeFlush: ((closing: boolean) => void)[] = []

  constructor(options: AuditQueueOptions) {
    this.#options = options
  }

  /** Entries waiting to be written. */
  get depth(): number {
    return this.#refused.length + this.#others.length
  }

  enqueue(item: QueuedAudit): void {
    const entry = { order: this.#order++, item }
    if (isRefused(item)) this.#refused.push(entry)
    else this.#others.push(entry)
    this.#bound()
  }

  /**
   * Runs `hook` before every flush (with `closing` true at the last one), so that what is held
   * elsewhere until a moment comes (a refusal window, a throttle's end) is enqueued in time.
   */
  beforeFlush(hook: (closing: boolean) => void): void {
    this.#beforeFlush.push(hook)
  }

  /** Flushes every `intervalMs` until closed. */
  start(intervalMs: number): void {
    this.#timer ??= setInterval(() => void this.flush(), intervalMs)
    this.#timer.unref()
  }

  /**
   * Writes everything queued, a batch per transaction; stops at the first failure, leaving the
   * rest to the next flush. Never rejects. One flush at a time: a call during one joins it.
   */
  flush(): Promise<void> {
    this.#flushing ??= this.#flush(false).finally(() => {
      this.#flushing = undefined
    })
    return this.#flushing
  }

  /** Stops the timer and writes what is left; what the store refuses then is dropped, counted. */
  async close(): Promise<void> {
    if (this.#timer !== undefined) clearInterval(this.#timer)
    this.#timer = undefined
    await this.#flushing
    await this.#flush(true)
    const lost = this.#take(this.depth)
    if (lost.length === 0) return
    for (const entry of lost) this.#countDropped(entry)
    this.#options.logger.error(
      { audit_events: lost.length },
      'audit events could not be written before stopping; dropped',
    )
  }

  async #flush(closing: boolean): Promise<void> {
    for (const hook of this.#beforeFlush) hook(closing)
    while (this.depth > 0) {
      const batch = this.#take(this.#options.batchSize)
      if (!(await this.#write(batch))) {
        this.#putBack(batch)
        return
      }
    }
  }

  async #write(batch: readonly Entry[]): Promise<boolean> {
    const events: NewAuditEvent[] = []
    const uses: AccountUse[] = []
    for (const { item } of batch) {
      if ('kind' in item) uses.push(item)
      else events.push(item)
    }
    const { logger, metrics } = this.#options
    try {
      await this.#options.store.appendEvents(events, uses)
    } catch (error) {
      metrics?.writeFailures.inc()
      if (!this.#failing) {
        logger.warn(
          { err: error, audit_events: batch.length + this.depth },
          'audit events could not be written; they wait in memory and are tried again',
        )
      }
      this.#failing = true
      return false
    }
    if (this.#failing) {
      logger.info({ audit_events: batch.length }, 'audit events are written again')
      this.#failing = false
    }
    return true
  }

  /** The oldest `count` entries across both lists, in enqueue order, taken off the queue. */
  #take(count: number): Entry[] {
    const taken: Entry[] = []
    let refused = 0
    let others = 0
    while (taken.length < count) {
      const nextRefused = this.#refused[refused]
      const nextOther = this.#others[others]
      if (nextRefused === undefined && nextOther === undefined) break
      if (
        nextOther === undefined ||
        (nextRefused !== undefined && nextRefused.order < nextOther.order)
      ) {
        taken.push(nextRefused as Entry)
        refused += 1
      } else {
        taken.push(nextOther)
        others += 1
      }
    }
    this.#refused = this.#refused.slice(refused)
    this.#others = this.#others.slice(others)
    return taken
  }

  /** A batch that could not be written goes back in front, older than everything queued since. */
  #putBack(batch: readonly Entry[]): void {
    this.#refused = [...batch.filter((entry) => isRefused(entry.item)), ...this.#refused]
    this.#others = [...batch.filter((entry) => !isRefused(entry.item)), ...this.#others]
    this.#bound()
  }

  #bound(): void {
    while (this.depth > this.#options.maxEvents) {
      const dropped = this.#refused.shift() ?? this.#others.shift()
      if (dropped !== undefined) this.#countDropped(dropped)
    }
  }

  #countDropped({ item }: Entry): void {
    this.#options.metrics?.dropped.inc({ type: typeOf(item) })
  }
}

function isRefused(item: QueuedAudit): boolean {
  return !('kind' in item) && item.type === 'refused'
}

/** A use is counted as the event it may become. */
function typeOf(item: QueuedAudit): AuditEventType {
  return 'kind' in item ? 'use_from_new_address' : item.type
}
