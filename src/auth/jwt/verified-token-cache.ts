import { LRUCache } from 'lru-cache'
import type { Metrics } from '../../metrics.js'
import type { Principal } from '../../principal.js'

interface Entry {
  readonly principal: Principal
  /** Epoch ms after which the entry is gone (the token's exp); null: no exp. */
  readonly deadline: number | null
}

/**
 * Principals of verified JWTs by token hash, so a token seen again skips the signature check.
 * It never changes an outcome: only successes are stored, an entry dies at the token's `exp`,
 * and a change of the key set (a JWKS reload) empties the cache. Failures are never cached.
 */
export class VerifiedTokenCache {
  readonly #entries: LRUCache<string, Entry> | undefined
  readonly #metrics: Metrics | undefined
  #generation = 0

  constructor(maxEntries: number, metrics?: Metrics) {
    this.#entries = maxEntries > 0 ? new LRUCache<string, Entry>({ max: maxEntries }) : undefined
    this.#metrics = metrics
  }

  get size(): number {
    return this.#entries?.size ?? 0
  }

  /** The cached principal of `tokenHash` verified under key-set `generation`, at time `now` (ms). */
  get(tokenHash: string, generation: number, now: number): Principal | undefined {
    if (this.#entries === undefined) return undefined
    this.#sync(generation)
    const entry = this.#entries.get(tokenHash)
    if (entry !== undefined && entry.deadline !== null && now >= entry.deadline) {
      this.#entries.delete(tokenHash)
    }
    const hit = entry !== undefined && (entry.deadline === null || now < entry.deadline)
    this.#metrics?.jwtCacheLookups.inc({ result: hit ? 'hit' : 'miss' })
    return hit ? entry.principal : undefined
  }

  set(tokenHash: string, generation: number, principal: Principal): void {
    if (this.#entries === undefined) return
    this.#sync(generation)
    // Verified under a key set that has since been replaced: the outcome may no longer hold.
    if (generation !== this.#generation) return
    const deadline = principal.expiresAt === null ? null : principal.expiresAt * 1000
    this.#entries.set(tokenHash, { principal, deadline })
  }

  clear(): void {
    this.#entries?.clear()
  }

  #sync(generation: number): void {
    if (generation > this.#generation) {
      this.#entries?.clear()
      this.#generation = generation
    }
  }
}
