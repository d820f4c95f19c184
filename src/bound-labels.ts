import { BoundedMemo } from './bounded-memo.js'

/**
 * prom-client hashes a label object on every `inc`/`observe`; the hot path binds each label
 * combination once instead. Label sets are bounded by design (templates, families, statuses); the
 * cap only guards against a bug that would make them unbounded.
 */
export class BoundLabels<Child> {
  readonly #children: BoundedMemo<Child>
  readonly #bind: (values: string[]) => Child

  constructor(bind: (values: string[]) => Child, max = 2_000) {
    this.#bind = bind
    this.#children = new BoundedMemo(max)
  }

  get(...values: string[]): Child {
    const key = values.join('\u0000')
    return this.#children.lookup(key) ?? this.#children.remember(key, this.#bind(values))
  }
}
