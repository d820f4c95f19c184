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
 * A few field names, found in a raw name of any case without lowercasing it: only the names of
 * the raw name's length are compared, letter by letter. A field of another length costs one array
 * read and nothing is allocated, where lowercasing each candidate's raw name made a string (and a
 * scan of it) for every such field of every request and response.
 */
export class FieldNames {
  /** The names (lowercase) by length; none is longer than MAX_LENGTH. */
  readonly #byLength: (readonly string[] | undefined)[]

  constructor(names: Iterable<string>) {
    const byLength: (string[] | undefined)[] = []
    for (const name of names) {
      const lower = name.toLowerCase()
      if (lower.length > MAX_LENGTH) throw new RangeError(`field name too long: ${lower}`)
      const bucket = (byLength[lower.length] ??= [])
      if (!bucket.includes(lower)) bucket.push(lower)
    }
    this.#byLength = Array.from({ length: MAX_LENGTH + 1 }, (_, length) => byLength[length])
  }

  /** The listed name `raw` is, as listed (lowercase); undefined when it is none of them. */
  find(raw: string): string | undefined {
    if (raw.length > MAX_LENGTH) return undefined
    const bucket = this.#byLength[raw.length]
    if (bucket === undefined) return undefined
    for (let index = 0; index < bucket.length; index++) {
      const name = bucket[index] as string
      if (sameFieldName(raw, name)) return name
    }
    return undefined
  }

  /** `find` for a name still in the bytes it arrived as (latin1, as Node and undici read them). */
  findBytes(raw: Uint8Array): string | undefined {
    if (raw.length > MAX_LENGTH) return undefined
    const bucket = this.#byLength[raw.length]
    if (bucket === undefined) return undefined
    for (let index = 0; index < bucket.length; index++) {
      const name = bucket[index] as string
      if (sameBytes(raw, name)) return name
    }
    return undefined
  }
}

/** Field names this long and shorter can be listed (the longest listed is 32 characters). */
const MAX_LENGTH = 48

/** Whether `raw` spells `name` (lowercase, same length) in any case. */
function sameBytes(raw: Uint8Array, name: string): boolean {
  for (let index = 0; index < raw.length; index++) {
    const x = raw[index] as number
    const y = name.charCodeAt(index)
    if (x === y) continue
    // Only an ASCII letter has a second case: its capital is 0x20 below.
    if ((x | 0x20) !== y || y < 0x61 || y > 0x7a) return false
  }
  return true
}
