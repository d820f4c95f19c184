import { makeRoom } from './make-room.js'
import type { CacheEvictionReason, ServiceAccountMetrics } from './metrics.js'
import type { ServiceAccountPrincipal } from './service-account-principal.js'

export interface ServiceAccountCacheOptions {
  /** 0 disables the cache: every verification asks the store. */
  readonly ttlSeconds: number
  readonly maxEntries: number
  /** Monotonic milliseconds. */
  readonly monotonic: () => number
  readonly metrics?: ServiceAccountMetrics
}

/** A cached verification: the principal, when it was stored, and whether it was used since. */
class Entry {
  used = false
  constructor(
    readonly principal: ServiceAccountPrincipal,
    /** Whole monotonic milliseconds (a small integer, stored without a box). */
    readonly storedAt: number,
  ) {}
}

/**
 * Verified accounts by token hash. The key is the SHA-256 of the token (the very string the
 * principal keeps as its `credentialHash`): the token itself never reaches the cache. An entry is
 * fresh while its age is at most the TTL (PAT-3).
 *
 * Sized for 100,000 accounts per process: an entry is one small object in one Map, with no
 * closures, timers or space reserved up front. At `maxEntries` the least recently used entries go
 * (second chance: entries are kept in the order they were stored, and one used since it was stored
 * or last spared is moved to the end instead of evicted), so a hit only sets a flag.
 */
export class ServiceAccountCache {
  readonly #ttlMs: number
  readonly #maxEntries: number
  readonly #monotonic: () => number
  readonly #metrics: ServiceAccountMetrics | undefined
  readonly #entries = new Map<string, Entry>()
  #generation = 0

  constructor(options: ServiceAccountCacheOptions) {
    this.#ttlMs = options.ttlSeconds * 1000
    this.#maxEntries = options.maxEntries
    this.#monotonic = options.monotonic
    this.#metrics = options.metrics
  }

  /** Changes on every revocation eviction; a lookup that straddled one must not cache its row. */
  get generation(): number {
    return this.#generation
  }

  get size(): number {
    return this.#entries.size
  }

  /** The cached principal while fresh; a stale entry is evicted (counted as `stale`). */
  get(tokenHash: string): ServiceAccountPrincipal | undefined {
    const entry = this.#entries.get(tokenHash)
    if (entry === undefined) return undefined
    if (this.#monotonic() - entry.storedAt > this.#ttlMs) {
      this.evict(tokenHash, 'stale')
      return undefined
    }
    entry.used = true
    return entry.principal
  }

  /**
   * Caches a verified account unless the cache is off or an eviction happened since the lookup
   * began (`generation` read before it): the row read may predate a revocation just announced.
   */
  set(tokenHash: string, principal: ServiceAccountPrincipal, generation: number): void {
    if (this.#ttlMs <= 0 || generation !== this.#generation) return
    // Re-stored entries move to the end: the Map's order is the order of storing.
    if (!this.#entries.delete(tokenHash)) {
      const evicted = makeRoom(this.#entries, this.#maxEntries, spareUsed)
      if (evicted > 0) this.#metrics?.cacheEvictions.inc({ reason: 'capacity' }, evicted)
    }
    this.#entries.set(tokenHash, new Entry(principal, Math.floor(this.#monotonic())))
  }

  evict(tokenHash: string, reason: CacheEvictionReason): void {
    if (reason === 'revoked') this.#generation += 1
    if (this.#entries.delete(tokenHash)) this.#metrics?.cacheEvictions.inc({ reason })
  }

  clear(reason: CacheEvictionReason): void {
    this.#generation += 1
    const count = this.#entries.size
    this.#entries.clear()
    if (count > 0) this.#metrics?.cacheEvictions.inc({ reason }, count)
  }
}

/** Second chance: an entry used since it was stored or last spared stays, once. */
function spareUsed(entry: Entry): boolean {
  const used = entry.used
  entry.used = false
  return used
}
