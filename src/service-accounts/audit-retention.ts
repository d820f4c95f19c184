import { randomUUID } from 'node:crypto'
import type { Clock } from '../clock.js'
import type { Logger } from '../logger.js'
import type { Timers } from '../timers.js'
import { removalOf } from './prune-event.js'
import type { ServiceAccountStore } from './store.js'

const DAY_MS = 86_400_000
/** A run after a failed one (the store was down): sooner than a day, not in a tight loop. */
const RETRY_MS = 3_600_000

export interface AuditRetentionDeps {
  readonly store: Pick<ServiceAccountStore, 'pruneEvents'>
  readonly retentionDays: number
  /** Most events removed in one transaction (`audit.prune_batch_size`). */
  readonly batchSize: number
  readonly clock: Pick<Clock, 'now'>
  readonly timers: Timers
  readonly logger: Logger
}

/**
 * Removes audit events older than the retention, once when started and then daily (an hour after
 * a failed run), by the store's prune, a batch at a time, oldest first: each batch is one
 * transaction that holds the chain lock for that batch only, so audit writes go on between
 * batches, and records its removal as a `prune` event of its own, so the trail verifies after each.
 * A run stops between batches when the retention is stopped; the next removes the rest. Replicas
 * on one database each run it; the store lets them share what is due, never removing an event
 * twice.
 */
export class AuditRetention {
  readonly #deps: AuditRetentionDeps
  #timer: { cancel(): void } | undefined
  #running: Promise<void> = Promise.resolve()
  #stopped = false

  constructor(deps: AuditRetentionDeps) {
    this.#deps = deps
  }

  start(): void {
    this.#run()
  }

  /** Cancels the next run and waits for the batch in progress; no batch starts after it. */
  async stop(): Promise<void> {
    this.#stopped = true
    this.#timer?.cancel()
    await this.#running
  }

  #run(): void {
    this.#running = this.#prune().then((succeeded) => {
      if (!this.#stopped)
        this.#timer = this.#deps.timers.set(() => this.#run(), succeeded ? DAY_MS : RETRY_MS)
    })
  }

  /** False when the store failed. */
  async #prune(): Promise<boolean> {
    const { store, retentionDays, batchSize, clock, logger } = this.#deps
    // One cutoff for the whole run: events that fall due while it runs wait for the next one.
    const cutoff = clock.now() - retentionDays * DAY_MS
    const done = { removed: 0, batches: 0, through: 0 }
    let complete = false
    const summary = () => ({ ...done, cutoff })
    try {
      while (!this.#stopped) {
        const event = await store.pruneEvents(
          cutoff,
          { id: randomUUID(), occurredAt: clock.now() },
          batchSize,
        )
        const removal = event === null ? null : removalOf(event)
        if (removal === null) {
          complete = true
          break
        }
        done.removed += removal.removed
        done.batches += 1
        done.through = removal.lastSeq
        // Fewer than a batch: the removal reached the first event that is not due.
        complete = removal.removed < batchSize
        if (complete) break
      }
      if (done.removed > 0)
        logger.info(
          summary(),
          complete
            ? 'audit events past the retention removed; the prune events record them'
            : 'audit events past the retention partly removed before shutdown; the prune events record them, the next run removes the rest',
        )
      return true
    } catch (error) {
      logger.warn(
        { err: error, ...summary() },
        'audit events past the retention could not all be removed; retrying in an hour',
      )
      return false
    }
  }
}
