import { findPin, observe, type FieldPin, type ObservedFields } from './field-pin.js'
import { scanString, scanValue, skipWhitespace } from './json-scan.js'

export type JsonPinResult =
  | {
      readonly kind: 'object'
      readonly body: Buffer
      readonly changed: boolean
      readonly observed: ObservedFields
    }
  /** Valid JSON that is not an object: nothing to pin at the top level. */
  | { readonly kind: 'not-object' }
  /** Python would refuse it too; the upstream answers its own 422. */
  | { readonly kind: 'invalid' }
  /** UTF-16/32, which `json.loads` detects and accepts; refused rather than passed unpinned. */
  | { readonly kind: 'not-utf8' }

const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf])

interface Edit {
  readonly start: number
  readonly end: number
  readonly text: string
}

/** Python's `json.detect_encoding`: BOMs and NUL patterns of the first bytes select UTF-16/32. */
function isUtf16Or32(raw: Buffer): boolean {
  if (
    raw.length >= 2 &&
    ((raw[0] === 0xfe && raw[1] === 0xff) || (raw[0] === 0xff && raw[1] === 0xfe))
  ) {
    return true
  }
  if (raw.length >= 4) return raw[0] === 0 || raw[1] === 0
  return raw.length === 2 && (raw[0] === 0 || raw[1] === 0)
}

function memberName(raw: Buffer, start: number, end: number): string {
  const inner = raw.subarray(start + 1, end - 1)
  return inner.includes(0x5c)
    ? (JSON.parse(raw.toString('utf8', start, end)) as string)
    : inner.toString('utf8')
}

function parseLoosely(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

/**
 * Sets the top-level members named by `pins` in a JSON object body, splicing only their values
 * (every duplicate, as Python keeps the last) and inserting the `always` ones that are missing
 * right after `{`. Everything else stays byte for byte. Records the client's values of `observed`.
 */
export function pinJsonMembers(
  raw: Buffer,
  pins: readonly FieldPin[],
  observed: readonly string[],
): JsonPinResult {
  if (isUtf16Or32(raw)) return { kind: 'not-utf8' }
  const start = skipWhitespace(raw, raw.subarray(0, 3).equals(UTF8_BOM) ? 3 : 0)
  if (raw[start] !== 0x7b) {
    const end = scanValue(raw, start)
    return end !== -1 && skipWhitespace(raw, end) === raw.length
      ? { kind: 'not-object' }
      : { kind: 'invalid' }
  }
  const seen = new Map<string, unknown[]>()
  const edits: Edit[] = []
  const set = new Set<string>()
  let at = skipWhitespace(raw, start + 1)
  const empty = raw[at] === 0x7d
  while (!empty) {
    const nameEnd = raw[at] === 0x22 ? scanString(raw, at) : -1
    if (nameEnd === -1) return { kind: 'invalid' }
    const colon = skipWhitespace(raw, nameEnd)
    if (raw[colon] !== 0x3a) return { kind: 'invalid' }
    const valueStart = skipWhitespace(raw, colon + 1)
    const valueEnd = scanValue(raw, valueStart)
    if (valueEnd === -1) return { kind: 'invalid' }
    const name = memberName(raw, at, nameEnd)
    if (observed.includes(name))
      observe(seen, name, parseLoosely(raw.toString('utf8', valueStart, valueEnd)))
    const pin = findPin(pins, name)
    if (pin !== undefined) {
      edits.push({ start: valueStart, end: valueEnd, text: JSON.stringify(pin.value) })
      set.add(name)
    }
    at = skipWhitespace(raw, valueEnd)
    if (raw[at] === 0x7d) break
    if (raw[at] !== 0x2c) return { kind: 'invalid' }
    at = skipWhitespace(raw, at + 1)
  }
  if (skipWhitespace(raw, at + 1) !== raw.length) return { kind: 'invalid' }

  const inserted = pins
    .filter((pin) => pin.always && !set.has(pin.name))
    .map((pin) => `${JSON.stringify(pin.name)}:${JSON.stringify(pin.value)}`)
  if (inserted.length > 0) {
    edits.unshift({
      start: start + 1,
      end: start + 1,
      text: inserted.join(',') + (empty ? '' : ','),
    })
  }
  if (edits.length === 0) return { kind: 'object', body: raw, changed: false, observed: seen }
  const pieces: Buffer[] = []
  let copied = 0
  for (const edit of edits) {
    pieces.push(raw.subarray(copied, edit.start), Buffer.from(edit.text, 'utf8'))
    copied = edit.end
  }
  pieces.push(raw.subarray(copied))
  return { kind: 'object', body: Buffer.concat(pieces), changed: true, observed: seen }
}
