import { LRUCache } from 'lru-cache'
import { systemClock, type Clock } from './clock.js'

/** What a cache holds: any value but null and undefined (lru-cache's own constraint). */
export type Cacheable = NonNullable<unknown>

/** Why entries left a cache: past its bound, past their age, or the owner's own reason. */
export type EvictionReason<R extends string> = 'capacity' | 'stale' | R

/** Metric hooks, one object per cache (never one per entry). */
export interface CacheHooks<R extends string = never> {
  readonly hit?: () => void
  readonly miss?: () => void
  readonly evicted?: (reason: EvictionReason<R>, count: number) => void
}

export interface BoundedCacheOptions<V extends Cacheable, R extends string = never> {
  /** Most entries; beyond it the least recently used go. 0: the cache holds nothing. */
  readonly max: number
  /** An entry is fresh while its age is at most this (ms, monotonic); 0 or absent: no age limit. */
  readonly ttlMs?: number
  /** A read makes the entry young again (an idle timeout rather than a lifetime). */
  readonly refreshOnGet?: boolean
  /** The time of the TTL; only its monotonic reading is used. */
  readonly clock?: Pick<Clock, 'monotonic'>
  /** Whether a found value no longer holds (a token past its expiry): dropped as stale, a miss. */
  readonly expired?: (value: V) => boolean
  readonly hooks?: CacheHooks<R>
}

/**
 * The gateway's one bounded table: least-recently-used eviction at `max` entries (lru-cache),
 * an optional age limit on an injected monotonic clock, a generation for invalidation, and metric
 * hooks. Entries are lru-cache's slots (no object, closure or timer per entry).
 *
 * Generation: a lookup that may race an invalidation reads `generation` before it starts and
 * stores its result with `set(key, value, generation)`; the value is dropped when the generation
 * moved meanwhile (`invalidate`, `clear`, or `follow` of a newer outside generation, such as a key
 * set's), so a result read before an invalidation never outlives it.
 */
export class BoundedCache<K extends Cacheable, V extends Cacheable, R extends string = never> {
  readonly #entries: LRUCache<K, V> | undefined
  readonly #hooks: CacheHooks<R>
  readonly #expired: ((value: V) => boolean) | undefined
  #generation = 0

  constructor(options: BoundedCacheOptions<V, R>) {
    this.#hooks = options.hooks ?? {}
    this.#expired = options.expired
    if (options.max <= 0) return
    const ttl = options.ttlMs ?? 0
    const clock = options.clock ?? systemClock
    const evicted = this.#hooks.evicted
    this.#entries = new LRUCache<K, V>({
      max: options.max,
      ...(ttl > 0 && {
        ttl,
        updateAgeOnGet: options.refreshOnGet === true,
        // The injected clock, read on every check (no cached "now"); shifted by 1 ms because
        // lru-cache takes an entry stored at time 0 for one without an age limit.
        perf: { now: () => clock.monotonic() + 1 },
        ttlResolution: 0,
      }),
      ...(evicted !== undefined && {
        dispose: (_value: V, _key: K, reason: LRUCache.DisposeReason) => {
          if (reason === 'evict') evicted('capacity', 1)
          else if (reason === 'expire') evicted('stale', 1)
        },
      }),
    })
  }

  /** Moves on every invalidation; a result read under an older one is not stored. */
  get generation(): number {
    return this.#generation
  }

  get size(): number {
    return this.#entries?.size ?? 0
  }

  /** The fresh value of `key`, counted as a hit or a miss; a stale one is dropped. */
  get(key: K): V | undefined {
    const entries = this.#entries
    if (entries === undefined) return undefined
    let value = entries.get(key)
    if (value !== undefined && this.#expired?.(value) === true) {
      entries.delete(key)
      this.#hooks.evicted?.('stale', 1)
      value = undefined
    }
    if (value === undefined) this.#hooks.miss?.()
    else this.#hooks.hit?.()
    return value
  }

  /** Stores `value` unless the generation moved since `generation` was read. */
  set(key: K, value: V, generation = this.#generation): void {
    if (generation === this.#generation) this.#entries?.set(key, value)
  }

  /** Stores and returns `value` (a memo: `cache.get(key) ?? cache.remember(key, compute())`). */
  remember(key: K, value: V): V {
    this.#entries?.set(key, value)
    return value
  }

  /** Drops `key`; true if it was there (counted under `reason` when given). */
  delete(key: K, reason?: R): boolean {
    const deleted = this.#entries?.delete(key) === true
    if (deleted && reason !== undefined) this.#hooks.evicted?.(reason, 1)
    return deleted
  }

  /** Drops `key` and moves the generation: lookups that began before cannot store their result. */
  invalidate(key: K, reason: R): void {
    this.#generation += 1
    this.delete(key, reason)
  }

  /** Drops every entry and moves the generation. */
  clear(reason?: R): void {
    this.#generation += 1
    const count = this.size
    this.#entries?.clear()
    if (count > 0 && reason !== undefined) this.#hooks.evicted?.(reason, count)
  }

  /** Follows an outside generation that only grows: a newer one drops every entry. */
  follow(generation: number, reason?: R): void {
    if (generation <= this.#generation) return
    this.clear(reason)
    this.#generation = generation
  }
}
