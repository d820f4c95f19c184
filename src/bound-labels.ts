/**
 * prom-client hashes a label object on every `inc`/`observe`; the hot path binds each label
 * combination once instead. Label sets are bounded by design (templates, families, statuses); the
 * cap only guards against a bug that would make them unbounded.
 */
export class BoundLabels<Child> {
  readonly #children = new Map<string, Child>()
  readonly #bind: (values: string[]) => Child
  readonly #max: number

  constructor(bind: (values: string[]) => Child, max = 2_000) {
    this.#bind = bind
    this.#max = max
  }

  get(...values: string[]): Child {
    const key = values.join('\u0000')
    let child = this.#children.get(key)
    if (child === undefined) {
      if (this.#children.size >= this.#max) this.#children.clear()
      child = this.#bind(values)
      this.#children.set(key, child)
    }
    return child
  }
}
