import { BoundedCache } from '../bounded-cache.js'

export interface FailedLookupThrottleOptions {
  readonly maxFailures: number
  readonly windowSeconds: number
  /** Most keys tracked (LRU); forgetting a key resets it, which bounds memory. */
  readonly maxClients: number
  /** Store lookups per second a limited key may still cause; 0: no bound. */
  readonly limitedLookupsPerSecond?: number
}

/** A limited key's lookups in the current second. */
interface LookupBudget {
  second: number
  used: number
}

/**
 * Sliding-window count of failed verifications per client key (PAT-4). A key with
 * `maxFailures` failures inside the window is limited; failures refused while limited are not
 * recorded, so the window drains `windowSeconds` after the failures that filled it. Times are
 * monotonic milliseconds.
 */
export class FailedLookupThrottle {
  readonly #maxFailures: number
  readonly #windowMs: number
  readonly #failures: BoundedCache<string, number[]>
  readonly #limitedLookups: number
  readonly #budgets: BoundedCache<string, LookupBudget>

  constructor(options: FailedLookupThrottleOptions) {
    this.#maxFailures = options.maxFailures
    this.#windowMs = options.windowSeconds * 1000
    this.#failures = new BoundedCache({ max: options.maxClients })
    this.#limitedLookups = options.limitedLookupsPerSecond ?? 0
    this.#budgets = new BoundedCache({ max: options.maxClients })
  }

  /**
   * 0 when a token from this key may be looked up in the store now; otherwise the Retry-After
   * (`retryAfterSeconds`) of the 429 it gets unread. Always 0 for a key that is not limited; for a
   * limited one, 0 a few times per second: AgentOS looks every token up before its limiter (so a
   * valid token from a limited address still passes), which a flood of distinct unknown tokens
   * turns into a store query per request. Past the budget a valid token passes again within the
   * second. The key's window is read once: this runs for every request of a flood.
   */
  lookupRetryAfter(key: string, nowMs: number): number {
    if (this.#limitedLookups === 0) return 0
    const retryAfter = this.retryAfterSeconds(key, nowMs)
    if (retryAfter === 0) return 0
    const second = Math.floor(nowMs / 1000)
    const budget = this.#budgets.get(key)
    if (budget === undefined || budget.second !== second) {
      this.#budgets.set(key, { second, used: 1 })
      return 0
    }
    if (budget.used >= this.#limitedLookups) return retryAfter
    budget.used += 1
    return 0
  }

  /** Records a failure; true when the key is limited from now on. */
  recordFailure(key: string, nowMs: number): boolean {
    const recent = this.#recent(key, nowMs)
    recent.push(nowMs)
    // Only the newest failures can matter; the cap keeps each key's memory fixed.
    if (recent.length > this.#maxFailures) recent.splice(0, recent.length - this.#maxFailures)
    this.#failures.set(key, recent)
    return recent.length >= this.#maxFailures
  }

  /**
   * Whole seconds until a failure from this key would be let through again: 0 exactly when the
   * key is not limited.
   */
  retryAfterSeconds(key: string, nowMs: number): number {
    const recent = this.#recent(key, nowMs)
    const blocking = recent[recent.length - this.#maxFailures]
    if (blocking === undefined) return 0
    return Math.max(1, Math.ceil((blocking + this.#windowMs - nowMs) / 1000))
  }

  get trackedClients(): number {
    return this.#failures.size
  }

  #recent(key: string, nowMs: number): number[] {
    const failures = this.#failures.get(key)
    if (failures === undefined) return []
    const firstLive = failures.findIndex((at) => nowMs - at < this.#windowMs)
    if (firstLive === -1) {
      this.#failures.delete(key)
      return []
    }
    if (firstLive > 0) failures.splice(0, firstLive)
    return failures
  }
}
