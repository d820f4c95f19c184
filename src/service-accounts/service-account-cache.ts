import { BoundedCache } from '../bounded-cache.js'
import type { Clock } from '../clock.js'
import type { CacheEvictionReason, ServiceAccountMetrics } from './metrics.js'
import type { ServiceAccountPrincipal } from './service-account-principal.js'

export interface ServiceAccountCacheOptions {
  /** 0 disables the cache: every verification asks the store. */
  readonly ttlSeconds: number
  readonly maxEntries: number
  readonly clock: Pick<Clock, 'monotonic'>
  readonly metrics?: ServiceAccountMetrics
}

/** Evictions the verifier asks for; `capacity` and `stale` are the cache's own. */
type OwnerReason = Exclude<CacheEvictionReason, 'capacity' | 'stale'>

/**
 * Verified accounts by token hash. The key is the SHA-256 of the token in its compact in-memory
 * form (`credentialDigest`, the very string the principal keeps as its `credentialHash`): the
 * token itself never reaches the cache. An entry is fresh while its age since it was stored is at
 * most the TTL (PAT-3); at `maxEntries` the least recently used entry goes. The value is the
 * principal itself (a few fields, see service-account-principal.ts): no wrapper object per entry.
 */
export class ServiceAccountCache {
  readonly #entries: BoundedCache<string, ServiceAccountPrincipal, OwnerReason>

  constructor(options: ServiceAccountCacheOptions) {
    const metrics = options.metrics
    this.#entries = new BoundedCache({
      max: options.ttlSeconds > 0 ? options.maxEntries : 0,
      ttlMs: options.ttlSeconds * 1000,
      clock: options.clock,
      ...(metrics !== undefined && {
        hooks: {
          hit: () => metrics.cacheHits.inc(),
          evicted: (reason: CacheEvictionReason, count: number) =>
            metrics.cacheEvictions.inc({ reason }, count),
        },
      }),
    })
  }

  /** Changes on every revocation eviction; a lookup that straddled one must not cache its row. */
  get generation(): number {
    return this.#entries.generation
  }

  get size(): number {
    return this.#entries.size
  }

  /** The cached principal while fresh; a stale entry is evicted (counted as `stale`). */
  get(tokenHash: string): ServiceAccountPrincipal | undefined {
    return this.#entries.get(tokenHash)
  }

  /**
   * Caches a verified account unless the cache is off or an eviction happened since the lookup
   * began (`generation` read before it): the row read may predate a revocation just announced.
   */
  set(tokenHash: string, principal: ServiceAccountPrincipal, generation: number): void {
    this.#entries.set(tokenHash, principal, generation)
  }

  evict(tokenHash: string, reason: OwnerReason): void {
    if (reason === 'revoked') this.#entries.invalidate(tokenHash, reason)
    else this.#entries.delete(tokenHash, reason)
  }

  clear(reason: OwnerReason): void {
    this.#entries.clear(reason)
  }
}
