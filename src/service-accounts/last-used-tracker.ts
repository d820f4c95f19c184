import { BoundedCache } from '../bounded-cache.js'

/**
 * Decides when to write `last_used_at`: at most once per interval per account in this process
 * (PAT-7), so a busy token costs one write a minute, not one per request.
 *
 * One entry per account (its id, shared with the cached principal, and a small integer): at
 * `maxAccounts` the accounts used longest ago are forgotten, which costs each at most one early
 * write.
 */
export class LastUsedTracker {
  readonly #intervalMs: number
  /** Account id → the whole millisecond at or after its last write (a small integer, no box). */
  readonly #lastWrite: BoundedCache<string, number>

  constructor(options: { intervalSeconds: number; maxAccounts: number }) {
    this.#intervalMs = options.intervalSeconds * 1000
    this.#lastWrite = new BoundedCache({ max: options.maxAccounts })
  }

  /** True when a write is due now; it is then counted as done (a failed write is not retried early). */
  claim(accountId: string, nowMs: number): boolean {
    const last = this.#lastWrite.get(accountId)
    if (last !== undefined && nowMs - last < this.#intervalMs) return false
    // Rounded up, so an interval is never cut short.
    this.#lastWrite.set(accountId, Math.ceil(nowMs))
    return true
  }
}
