import { makeRoom } from './make-room.js'

/**
 * Decides when to write `last_used_at`: at most once per interval per account in this process
 * (PAT-7), so a busy token costs one write a minute, not one per request.
 *
 * One map entry per account (its id, shared with the cached principal, and a small integer), in
 * order of last write: at `maxAccounts` the accounts written longest ago are forgotten, which costs
 * each at most one early write.
 */
export class LastUsedTracker {
  readonly #intervalMs: number
  readonly #maxAccounts: number
  /** Account id → the whole millisecond at or after its last write (a small integer, no box). */
  readonly #lastWrite = new Map<string, number>()

  constructor(options: { intervalSeconds: number; maxAccounts: number }) {
    this.#intervalMs = options.intervalSeconds * 1000
    this.#maxAccounts = options.maxAccounts
  }

  /** True when a write is due now; it is then counted as done (a failed write is not retried early). */
  claim(accountId: string, nowMs: number): boolean {
    const last = this.#lastWrite.get(accountId)
    if (last !== undefined) {
      if (nowMs - last < this.#intervalMs) return false
      this.#lastWrite.delete(accountId)
    } else {
      makeRoom(this.#lastWrite, this.#maxAccounts)
    }
    // Rounded up, so an interval is never cut short.
    this.#lastWrite.set(accountId, Math.ceil(nowMs))
    return true
  }
}
