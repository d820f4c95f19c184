import { BoundedCache } from '../../bounded-cache.js'
import type { Clock } from '../../clock.js'
import type { Metrics } from '../../metrics.js'
import type { Principal } from '../../principal.js'

/**
 * Principals of verified JWTs by token hash, so a token seen again skips the signature check.
 * It never changes an outcome: only successes are stored, an entry dies at the token's `exp`
 * (the principal's `expiresAt`, on the wall clock, as the verification checks it), and a change
 * of the key set (a JWKS reload) empties the cache. Failures are never cached.
 */
export class VerifiedTokenCache {
  readonly #entries: BoundedCache<string, Principal>

  constructor(maxEntries: number, clock: Pick<Clock, 'now'>, metrics?: Metrics) {
    const lookups = metrics?.jwtCacheLookups
    const hit = lookups?.labels({ result: 'hit' })
    const miss = lookups?.labels({ result: 'miss' })
    this.#entries = new BoundedCache({
      max: maxEntries,
      expired: (principal) =>
        principal.expiresAt !== null && clock.now() >= principal.expiresAt * 1000,
      ...(hit !== undefined &&
        miss !== undefined && { hooks: { hit: () => hit.inc(), miss: () => miss.inc() } }),
    })
  }

  get size(): number {
    return this.#entries.size
  }

  /** The cached principal of `tokenHash` verified under key-set `generation`. */
  get(tokenHash: string, generation: number): Principal | undefined {
    this.#entries.follow(generation)
    return this.#entries.get(tokenHash)
  }

  /** Stores a principal verified under `generation`, unless the key set has changed since. */
  set(tokenHash: string, generation: number, principal: Principal): void {
    this.#entries.follow(generation)
    this.#entries.set(tokenHash, principal, generation)
  }
}
