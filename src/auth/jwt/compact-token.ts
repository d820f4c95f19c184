import { BoundedCache } from '../../bounded-cache.js'
import { deepFreeze } from '../../deep-freeze.js'
import { invalidToken } from './jwt-errors.js'

const BASE64URL = /^[A-Za-z0-9_-]*$/
const EQUALS = 0x3d

// An issuer signs every token with one of a few headers (`alg`, `typ`, `kid`), so a fresh token
// brings a header segment already decoded. Bounded: a flood of forged headers only turns it over.
const MAX_DECODED_HEADERS = 64
const decodedHeaders = new BoundedCache<string, Readonly<Record<string, unknown>> | false>({
  max: MAX_DECODED_HEADERS,
})

export interface CompactToken {
  readonly header: Readonly<Record<string, unknown>>
  readonly payloadSegment: string
}

/**
 * The structural checks done before any key is looked at, in PyJWT's order and words: the size
 * cap (before anything is parsed), three dot-separated base64url segments, a JSON-object header.
 */
export function parseCompactToken(token: string, maxBytes: number): CompactToken {
  if (Buffer.byteLength(token, 'utf8') > maxBytes) {
    throw invalidToken('jwt.too_large', 'Token is too large')
  }
  const segments = token.split('.')
  const [headerSegment, payloadSegment, signatureSegment] = segments
  if (
    segments.length !== 3 ||
    headerSegment === undefined ||
    payloadSegment === undefined ||
    signatureSegment === undefined
  ) {
    throw invalidToken('jwt.malformed', 'Not enough segments')
  }
  if (!isBase64Url(headerSegment)) throw invalidToken('jwt.malformed', 'Invalid header padding')
  if (!isBase64Url(payloadSegment)) throw invalidToken('jwt.malformed', 'Invalid payload padding')
  if (!isBase64Url(signatureSegment)) throw invalidToken('jwt.malformed', 'Invalid crypto padding')
  const header = decodeHeader(headerSegment)
  if (header === undefined) {
    throw invalidToken('jwt.malformed', 'Invalid header string: must be a json object')
  }
  return { header, payloadSegment }
}

/**
 * A header segment's JSON object (deep-frozen: it is shared by every token carrying the same
 * segment), or undefined for anything else. Decoded once per distinct segment text.
 */
export function decodeHeader(segment: string): Readonly<Record<string, unknown>> | undefined {
  let header = decodedHeaders.get(segment)
  if (header === undefined) {
    header = decodedHeaders.remember(segment, deepFreeze(decodeJsonObject(segment)) ?? false)
  }
  return header === false ? undefined : header
}

/** A base64url segment holding a JSON object, or undefined for anything else. */
export function decodeJsonObject(segment: string): Record<string, unknown> | undefined {
  let value: unknown
  try {
    value = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'))
  } catch {
    return undefined
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined
  return value as Record<string, unknown>
}

/**
 * PyJWT adds the missing `=` before decoding, so a segment that already carries its correct
 * padding is accepted too (some issuers pad); any other `=` is refused.
 */
function isBase64Url(segment: string): boolean {
  let end = segment.length
  while (end > 0 && segment.charCodeAt(end - 1) === EQUALS) end -= 1
  const padding = segment.length - end
  const data = padding === 0 ? segment : segment.slice(0, end)
  if (!BASE64URL.test(data) || data.length % 4 === 1) return false
  return padding === 0 || padding === 4 - (data.length % 4)
}
