/** Why the store refused a token for good. */
export interface Refusal {
  readonly reason: 'unknown' | 'revoked'
  readonly accountId: string | undefined
}

interface Entry extends Refusal {
  /** Monotonic milliseconds after which the store is asked again. */
  readonly until: number
}

/**
 * Hashes of tokens the store did not know or knew as revoked, so that a client retrying a wrong
 * or revoked token (or flooding the gateway with one) costs a map lookup instead of a store query
 * per request: a token is looked up before the throttle answers (PAT-4, a valid token is never
 * throttled), so throttling alone never spared the store. Such a token does not become valid (tokens are minted from 32 random bytes and
 * a revocation is final); the entries are still bounded in time and in number, the oldest
 * forgotten first. Refusals served from here count against the client's throttle as before.
 */
export class RefusedTokens {
  readonly #entries = new Map<string, Entry>()
  readonly #ttlMs: number
  readonly #maxEntries: number

  constructor(options: { ttlSeconds: number; maxEntries: number }) {
    this.#ttlMs = options.ttlSeconds * 1000
    this.#maxEntries = options.maxEntries
  }

  get(tokenHash: string, now: number): Refusal | undefined {
    const entry = this.#entries.get(tokenHash)
    if (entry === undefined) return undefined
    if (entry.until >= now) return entry
    this.#entries.delete(tokenHash)
    return undefined
  }

  remember(tokenHash: string, refusal: Refusal, now: number): void {
    if (this.#ttlMs <= 0 || this.#maxEntries <= 0) return
    if (this.#entries.size >= this.#maxEntries) {
      const oldest = this.#entries.keys().next()
      if (oldest.done !== true) this.#entries.delete(oldest.value)
    }
    this.#entries.set(tokenHash, { ...refusal, until: now + this.#ttlMs })
  }

  get size(): number {
    return this.#entries.size
  }
}
