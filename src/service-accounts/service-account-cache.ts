import { LRUCache } from 'lru-cache'
import type { Principal } from '../principal.js'
import type { CacheEvictionReason, ServiceAccountMetrics } from './metrics.js'

/** A verified account as cached: its principal and what a hit must re-check. */
export interface CachedAccount {
  readonly principal: Principal
  readonly accountId: string
  /** Epoch seconds; null: never. Re-checked against the wall clock on every hit. */
  readonly expiresAt: number | null
}

interface Entry {
  readonly account: CachedAccount
  readonly storedAt: number
}

export interface ServiceAccountCacheOptions {
  /** 0 disables the cache: every verification asks the store. */
  readonly ttlSeconds: number
  readonly maxEntries: number
  /** Monotonic milliseconds. */
  readonly monotonic: () => number
  readonly metrics?: ServiceAccountMetrics
}

/**
 * Verified accounts by token hash. The key is the SHA-256 of the token: the token itself never
 * reaches the cache. An entry is fresh while its age is at most the TTL (PAT-3).
 */
export class ServiceAccountCache {
  readonly #ttlMs: number
  readonly #monotonic: () => number
  readonly #metrics: ServiceAccountMetrics | undefined
  readonly #entries: LRUCache<string, Entry>
  #generation = 0

  constructor(options: ServiceAccountCacheOptions) {
    this.#ttlMs = options.ttlSeconds * 1000
    this.#monotonic = options.monotonic
    this.#metrics = options.metrics
    this.#entries = new LRUCache({
      max: options.maxEntries,
      dispose: (_entry, _key, reason) => {
        if (reason === 'evict') this.#metrics?.cacheEvictions.inc({ reason: 'capacity' })
      },
    })
  }

  /** Changes on every revocation eviction; a lookup that straddled one must not cache its row. */
  get generation(): number {
    return this.#generation
  }

  get size(): number {
    return this.#entries.size
  }

  get(tokenHash: string): CachedAccount | undefined {
    const entry = this.#entries.get(tokenHash)
    if (entry === undefined) return undefined
    if (this.#monotonic() - entry.storedAt > this.#ttlMs) {
      this.evict(tokenHash, 'stale')
      return undefined
    }
    return entry.account
  }

  /**
   * Caches a verified account unless the cache is off or an eviction happened since the lookup
   * began (`generation` read before it): the row read may predate a revocation just announced.
   */
  set(tokenHash: string, account: CachedAccount, generation: number): void {
    if (this.#ttlMs <= 0 || generation !== this.#generation) return
    this.#entries.set(tokenHash, { account, storedAt: this.#monotonic() })
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
