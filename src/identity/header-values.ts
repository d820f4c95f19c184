/**
 * Header values built from verified identity. Ids may contain anything an IdP puts in `sub`, so
 * every value is reduced to visible ASCII before it reaches the wire.
 */

// `%` is encoded too, so that the encoding stays reversible: a literal `%C3%A9` id cannot be
// mistaken for the encoding of `é`.
const NEEDS_ENCODING = /[^\x21-\x24\x26-\x7e]/

/** Percent-encodes (UTF-8) every character outside visible ASCII, and `%` itself. */
export function encodeIdHeaderValue(id: string): string {
  if (!NEEDS_ENCODING.test(id)) return id
  let out = ''
  for (const char of id) {
    if (!NEEDS_ENCODING.test(char)) {
      out += char
      continue
    }
    for (const byte of Buffer.from(char, 'utf8'))
      out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`
  }
  return out
}

const NON_ASCII = /[\u007f-\uffff]/g
const HAS_NON_ASCII = /[\u007f-\uffff]/

/** JSON whose every non-ASCII character (and DEL) is a `\u` escape, so it is a valid field value. */
export function jsonHeaderValue(value: unknown): string {
  const json = JSON.stringify(value)
  // Most values are ASCII already: no replacement pass, no callback.
  if (!HAS_NON_ASCII.test(json)) return json
  return json.replace(NON_ASCII, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`)
}
