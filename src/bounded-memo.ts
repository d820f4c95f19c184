/**
 * Remembers values that are costly to compute and asked for again and again (parsed scopes,
 * metric label children, trusted-proxy answers, shared scope lists, a principal's header plans).
 * The keys are few in practice; when they are not (a flood of distinct scopes in tokens, of client
 * addresses, of principals), the table starts over at `max` entries instead of growing without
 * bound.
 */
export class BoundedMemo<V, K = string> {
  readonly #entries = new Map<K, V>()
  readonly #max: number

  constructor(max: number) {
    this.#max = max
  }

  lookup(key: K): V | undefined {
    return this.#entries.get(key)
  }

  /** Stores and returns `value`. */
  remember(key: K, value: V): V {
    if (this.#entries.size >= this.#max) this.#entries.clear()
    this.#entries.set(key, value)
    return value
  }
}
