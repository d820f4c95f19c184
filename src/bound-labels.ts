import { BoundedCache, type Cacheable } from './bounded-cache.js'

/**
 * prom-client hashes a label object on every `inc`/`observe`; the hot path binds each label
 * combination once instead. Label sets are bounded by design (templates, families, statuses); the
 * cap only guards against a bug that would make them unbounded.
 */
export class BoundLabels<Child extends Cacheable> {
  readonly #children: BoundedCache<string, Child>
  readonly #bind: (values: string[]) => Child

  constructor(bind: (values: string[]) => Child, max = 2_000) {
    this.#bind = bind
    this.#children = new BoundedCache({ max })
  }

  get(...values: string[]): Child {
    const key = values.join('\u0000')
    return this.#children.get(key) ?? this.#children.remember(key, this.#bind(values))
  }
}
