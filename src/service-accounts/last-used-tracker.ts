import { LRUCache } from 'lru-cache'

/**
 * Decides when to write `last_used_at`: at most once per interval per account in this process
 * (PAT-7), so a busy token costs one write a minute, not one per request.
 */
export class LastUsedTracker {
  readonly #intervalMs: number
  readonly #lastWrite: LRUCache<string, number>

  constructor(options: { intervalSeconds: number; maxAccounts: number }) {
    this.#intervalMs = options.intervalSeconds * 1000
    this.#lastWrite = new LRUCache({ max: options.maxAccounts })
  }

  /** True when a write is due now; it is then counted as done (a failed write is not retried early). */
  claim(accountId: string, nowMs: number): boolean {
    const last = this.#lastWrite.get(accountId)
    if (last !== undefined && nowMs - last < this.#intervalMs) return false
    this.#lastWrite.set(accountId, nowMs)
    return true
  }
}
