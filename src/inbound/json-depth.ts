import { GatewayError } from '../errors.js'

const QUOTE = 0x22
const BACKSLASH = 0x5c

/**
 * Whether a JSON text nests arrays and objects deeper than `maxDepth`, by a scan of its bytes
 * (no parse, no recursion). Exact for valid JSON; what it says about invalid JSON is irrelevant,
 * as the parser refuses that anyway. It runs before JSON.parse because the values the gateway
 * parses are later serialized again, and JSON.stringify recurses: a body of 500 000 `[` would
 * end in a stack overflow.
 */
export function jsonNestingExceeds(raw: Buffer, maxDepth: number): boolean {
  let depth = 0
  let inString = false
  for (let index = 0; index < raw.length; index++) {
    const byte = raw[index]
    if (inString) {
      if (byte === BACKSLASH) index++
      else if (byte === QUOTE) inString = false
    } else if (byte === QUOTE) {
      inString = true
    } else if (byte === 0x5b || byte === 0x7b) {
      if (++depth > maxDepth) return true
    } else if (byte === 0x5d || byte === 0x7d) {
      depth--
    }
  }
  return false
}

export function jsonTooDeep(): GatewayError {
  return new GatewayError('BAD_REQUEST', 'JSON body nested too deeply', {
    reason: 'body.json_depth',
  })
}
