import { LRUCache } from 'lru-cache'

export interface FailedLookupThrottleOptions {
  readonly maxFailures: number
  readonly windowSeconds: number
  /** Most keys tracked (LRU); forgetting a key resets it, which bounds memory. */
  readonly maxClients: number
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
  readonly #failures: LRUCache<string, number[]>

  constructor(options: FailedLookupThrottleOptions) {
    this.#maxFailures = options.maxFailures
    this.#windowMs = options.windowSeconds * 1000
    this.#failures = new LRUCache({ max: options.maxClients })
  }

  isLimited(key: string, nowMs: number): boolean {
    return this.#recent(key, nowMs).length >= this.#maxFailures
  }

  recordFailure(key: string, nowMs: number): void {
    const recent = this.#recent(key, nowMs)
    recent.push(nowMs)
    // Only the newest failures can matter; the cap keeps each key's memory fixed.
    if (recent.length > this.#maxFailures) recent.splice(0, recent.length - this.#maxFailures)
    this.#failures.set(key, recent)
  }

  /** Whole seconds until a failure from this key would be let through again (0: not limited). */
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
