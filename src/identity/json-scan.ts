/**
 * A byte-level JSON scanner accepting exactly what the upstream's `json.loads` accepts (standard
 * JSON plus `NaN`, `Infinity`, `-Infinity`), without recursion. It lets the gateway rewrite one
 * member of a body while every other byte stays as the client sent it; a body the scanner refuses
 * is one Python refuses too, so passing it on unchanged pins nothing the upstream would read.
 */

const QUOTE = 0x22
const BACKSLASH = 0x5c
const SIMPLE_ESCAPES = new Set([0x22, 0x5c, 0x2f, 0x62, 0x66, 0x6e, 0x72, 0x74])
const LITERALS = ['true', 'false', 'null', 'NaN', 'Infinity', '-Infinity'].map((word) =>
  Buffer.from(word),
)

export function skipWhitespace(bytes: Buffer, index: number): number {
  while (index < bytes.length) {
    const byte = bytes[index]
    if (byte !== 0x20 && byte !== 0x09 && byte !== 0x0a && byte !== 0x0d) break
    index++
  }
  return index
}

function isDigit(byte: number | undefined): boolean {
  return byte !== undefined && byte >= 0x30 && byte <= 0x39
}

function isHex(byte: number | undefined): boolean {
  if (byte === undefined) return false
  const lower = byte | 0x20
  return isDigit(byte) || (lower >= 0x61 && lower <= 0x66)
}

/** The index after the string starting at `index` (a `"`), or -1. */
export function scanString(bytes: Buffer, index: number): number {
  for (let at = index + 1; at < bytes.length; at++) {
    const byte = bytes[at] as number
    if (byte === QUOTE) return at + 1
    if (byte < 0x20) return -1
    if (byte !== BACKSLASH) continue
    const escape = bytes[at + 1]
    if (escape === 0x75) {
      for (let hex = at + 2; hex < at + 6; hex++) if (!isHex(bytes[hex])) return -1
      at += 5
    } else if (escape !== undefined && SIMPLE_ESCAPES.has(escape)) {
      at += 1
    } else {
      return -1
    }
  }
  return -1
}

function scanNumber(bytes: Buffer, index: number): number {
  let at = bytes[index] === 0x2d ? index + 1 : index
  if (bytes[at] === 0x30) at++
  else if (isDigit(bytes[at])) while (isDigit(bytes[at])) at++
  else return -1
  if (bytes[at] === 0x2e && isDigit(bytes[at + 1])) {
    at++
    while (isDigit(bytes[at])) at++
  }
  const exponent = bytes[at] === 0x65 || bytes[at] === 0x45
  const signed = bytes[at + 1] === 0x2b || bytes[at + 1] === 0x2d
  if (exponent && isDigit(bytes[signed ? at + 2 : at + 1])) {
    at += signed ? 2 : 1
    while (isDigit(bytes[at])) at++
  }
  return at
}

function scanScalar(bytes: Buffer, index: number): number {
  const byte = bytes[index]
  if (byte === QUOTE) return scanString(bytes, index)
  if (byte === 0x2d || isDigit(byte)) {
    if (bytes[index + 1] !== 0x49) return scanNumber(bytes, index)
  }
  for (const literal of LITERALS) {
    if (literal[0] !== byte) continue
    if (bytes.subarray(index, index + literal.length).equals(literal)) return index + literal.length
  }
  return -1
}

/** The index after the value starting at `index` (no leading whitespace), or -1 when invalid. */
export function scanValue(bytes: Buffer, index: number): number {
  const open: number[] = []
  let at = index
  for (;;) {
    // A value is expected at `at`.
    const byte = bytes[at]
    if (byte === 0x7b || byte === 0x5b) {
      open.push(byte)
      at = skipWhitespace(bytes, at + 1)
      const close = byte === 0x7b ? 0x7d : 0x5d
      if (bytes[at] === close) {
        open.pop()
        at++
      } else if (byte === 0x7b) {
        at = scanMemberName(bytes, at)
        if (at === -1) return -1
        continue
      } else {
        continue
      }
    } else {
      at = scanScalar(bytes, at)
      if (at === -1) return -1
    }
    // A value ended at `at`: close containers until one continues with a comma.
    for (;;) {
      const container = open.at(-1)
      if (container === undefined) return at
      at = skipWhitespace(bytes, at)
      const next = bytes[at]
      if (next === 0x2c) {
        at = skipWhitespace(bytes, at + 1)
        if (container === 0x7b) {
          at = scanMemberName(bytes, at)
          if (at === -1) return -1
        }
        break
      }
      if (next !== (container === 0x7b ? 0x7d : 0x5d)) return -1
      open.pop()
      at++
    }
  }
}

/** `"name" :` followed by whitespace; returns the index of the member's value, or -1. */
function scanMemberName(bytes: Buffer, index: number): number {
  if (bytes[index] !== QUOTE) return -1
  const end = scanString(bytes, index)
  if (end === -1) return -1
  const colon = skipWhitespace(bytes, end)
  if (bytes[colon] !== 0x3a) return -1
  return skipWhitespace(bytes, colon + 1)
}
