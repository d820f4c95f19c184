import { BoundedCache } from '../bounded-cache.js'
import type { Clock } from '../clock.js'

/** Why the store refused a token for good. */
export interface Refusal {
  readonly reason: 'unknown' | 'revoked'
  readonly account: { readonly id: string; readonly name: string } | undefined
}

/**
 * Hashes of tokens the store did not know or knew as revoked, so that a client retrying a wrong
 * or revoked token (or flooding the gateway with one) costs a map lookup instead of a store query
 * per request: a token is looked up before the throttle answers (PAT-4), so throttling alone never
 * spared the store. Such a token does not become valid (tokens are minted from 32 random bytes
 * and a revocation is final); the entries are still bounded in time (fresh while their age is at
 * most the TTL, by the monotonic clock) and in number (least recently used first). Refusals
 * served from here count against the client's throttle as before.
 */
export class RefusedTokens {
  readonly #entries: BoundedCache<string, Refusal>

  constructor(options: {
    ttlSeconds: number
    maxEntries: number
    clock: Pick<Clock, 'monotonic'>
  }) {
    this.#entries = new BoundedCache({
      max: options.ttlSeconds > 0 ? options.maxEntries : 0,
      ttlMs: options.ttlSeconds * 1000,
      clock: options.clock,
    })
  }

  get(tokenHash: string): Refusal | undefined {
    return this.#entries.get(tokenHash)
  }

  remember(tokenHash: string, refusal: Refusal): void {
    this.#entries.set(tokenHash, refusal)
  }

  get size(): number {
    return this.#entries.size
  }
}
