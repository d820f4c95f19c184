import { randomUUID } from 'node:crypto'
import type { Clock } from '../clock.js'
import type { Logger } from '../logger.js'
import type { Timers } from '../timers.js'
import type { ServiceAccountStore } from './store.js'

const DAY_MS = 86_400_000
/** A run after a failed one (the store was down): sooner than a day, not in a tight loop. */
const RETRY_MS = 3_600_000

export interface AuditRetentionDeps {
  readonly store: Pick<ServiceAccountStore, 'pruneEvents'>
  readonly retentionDays: number
  readonly clock: Pick<Clock, 'now'>
  readonly timers: Timers
  readonly logger: Logger
}

/**
 * Removes audit events older than the retention, once when started and then daily (an hour after
 * a failed run), by the store's prune, which records each removal as a `prune` event. Replicas on
 * one database each run it; the store lets one of them remove what is due.
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

  /** Cancels the next run and waits for one in progress. */
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
    const { store, retentionDays, clock, logger } = this.#deps
    const now = clock.now()
    const cutoff = now - retentionDays * DAY_MS
    try {
      const event = await store.pruneEvents(cutoff, { id: randomUUID(), occurredAt: now })
      if (event !== null)
        logger.info(
          { seq: event.seq, details: event.details },
          'audit events past the retention removed; the prune event records them',
        )
      return true
    } catch (error) {
      logger.warn(
        { err: error },
        'audit events past the retention could not be removed; retrying in an hour',
      )
      return false
    }
  }
}
