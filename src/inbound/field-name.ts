/**
 * Whether two field names are the same name. Names are tokens (RFC 9110 §5.6.2), ASCII, compared
 * without regard to case: the lengths first, then letter by letter. Nothing is allocated, where
 * lowercasing each raw name made a new string for every field of every request that was not
 * lowercase already.
 */
export function sameFieldName(a: string, b: string): boolean {
  if (a.length !== b.length) return false
  if (a === b) return true
  for (let index = 0; index < a.length; index++) {
    const x = a.charCodeAt(index)
    const y = b.charCodeAt(index)
    if (x === y) continue
    // Only an ASCII letter has a second case, 0x20 apart.
    const folded = x | 0x20
    if (folded !== (y | 0x20) || folded < 0x61 || folded > 0x7a) return false
  }
  return true
}

/**
 * The lengths of a few field names, for skipping every field that cannot be one of them before
 * its name is lowercased. A length below 32 is one bit of a number: the test is a shift, where a
 * Set of numbers was a hash lookup for every field of every request and response.
 */
export class NameLengths {
  readonly #short: number
  readonly #long: ReadonlySet<number>

  constructor(names: Iterable<string>) {
    let short = 0
    const long = new Set<number>()
    for (const { length } of names) {
      if (length < 32) short |= 1 << length
      else long.add(length)
    }
    this.#short = short
    this.#long = long
  }

  has(length: number): boolean {
    return length < 32 ? ((this.#short >>> length) & 1) === 1 : this.#long.has(length)
  }
}
