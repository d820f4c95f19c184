import { GatewayError } from '../errors.js'
import type { ReasonIn } from '../reasons.js'

/** A request target reduced to the one meaning that is authorized and forwarded. */
export interface CanonicalTarget {
  /** Percent-decoded once, trailing slashes stripped: what every decision is made on. */
  readonly path: string
  /** `path` re-encoded for the wire; the upstream decodes it back to exactly `path`. */
  readonly forwardPath: string
  /** The raw query string without `?`; empty when absent. */
  readonly query: string
}

// RFC 3986 pchar plus `/` and `%`, minus `;`: everything else in a raw path is refused. `;` is
// refused because some servers read it as a parameter delimiter (`..;/`).
const RAW_PATH = /^\/[A-Za-z0-9\-._~!$&'()*+,=:@/%]*$/
const HEX = /^[0-9A-Fa-f]{2}$/
const utf8 = new TextDecoder('utf-8', { fatal: true })

// Bytes that must not appear after decoding: each would give the path another structure for the
// upstream than the one we authorize (`/`, `\`, `.`, `%`, `?`, `#`, `;`), or is a control byte.
const FORBIDDEN_DECODED = new Set([0x2f, 0x5c, 0x2e, 0x25, 0x3f, 0x23, 0x3b])

// A segment ending in whitespace (Python's str.isspace, JavaScript's \s, or a no-break space)
// may be trimmed by some reader between here and the handler, into another route or id.
const TRAILING_SPACE = /[\s\x85]$/u
// Dot look-alikes (fullwidth, small, leaders, ideographic stops): a segment made only of them
// reads as `.` or `..` to anything that applies NFKC or IDNA mapping.
const DOT_LOOKALIKES = /^[.\u2024\u2025\u2026\u3002\uFE52\uFF0E\uFF61]+$/u

// What the fast path leaves to the full one: an empty segment (`//` anywhere, which also covers a
// path of only slashes) or a `.`/`..` segment.
const UNCLEAN = /\/\/|\/\.\.?(?:\/|$)/

// Characters kept verbatim when re-encoding a segment: unreserved, sub-delims (without `;`), `:`, `@`.
const SAFE_SEGMENT = /^[A-Za-z0-9\-._~!$&'()*+,=:@]*$/

function refuse(reason: ReasonIn<'path'>): never {
  throw new GatewayError('INVALID_PATH', 'Invalid request path', { reason: `path.${reason}` })
}

/**
 * Canonicalizes a raw request target, or throws INVALID_PATH for any form whose meaning could
 * differ between the gateway and the upstream: dot segments (literal, encoded or look-alike), encoded
 * `/`, `\` or NUL, empty segments (`//`), segments ending in whitespace, fragments, invalid
 * percent-encoding or invalid UTF-8.
 */
export function canonicalizeTarget(rawTarget: string): CanonicalTarget {
  const queryAt = rawTarget.indexOf('?')
  const rawPath = queryAt === -1 ? rawTarget : rawTarget.slice(0, queryAt)
  const query = queryAt === -1 ? '' : rawTarget.slice(queryAt + 1)
  if (!RAW_PATH.test(rawPath)) refuse('characters')
  if (query.includes('#')) refuse('fragment')

  const encoded = rawPath.includes('%')
  if (!encoded && !UNCLEAN.test(rawPath)) {
    // Nothing to decode, no empty or dot segment: the path is its own canonical and wire form
    // (every character RAW_PATH admits but `%` is safe in a segment), less its trailing slashes.
    let end = rawPath.length
    while (end > 1 && rawPath.charCodeAt(end - 1) === 0x2f) end--
    const path = end === rawPath.length ? rawPath : rawPath.slice(0, end)
    return { path, forwardPath: path, query }
  }
  const decoded = encoded ? percentDecode(rawPath) : rawPath
  const segments = decoded.split('/')
  // Strip all trailing slashes, as AgentOS's TrailingSlashMiddleware does; `/` stays `/`.
  let end = segments.length
  while (end > 1 && segments[end - 1] === '') end--
  if (end === 1) {
    // `//` is not the root: AgentOS leaves it unstripped, so its meaning differs from `/`.
    if (decoded !== '/') refuse('empty_segment')
    return { path: '/', forwardPath: '/', query }
  }

  let forwardPath = ''
  let path = ''
  for (let index = 1; index < end; index++) {
    const segment = segments[index] as string
    if (segment === '') refuse('empty_segment')
    if (segment === '.' || segment === '..') refuse('dot_segment')
    // Whitespace and non-ASCII characters can only come from a percent escape.
    if (encoded) refuseLookalikes(segment)
    path += '/' + segment
    forwardPath += '/' + (SAFE_SEGMENT.test(segment) ? segment : encodeSegment(segment))
  }
  return { path, forwardPath, query }
}

/** Stricter than AgentOS, which reads these as they are: no reader may see another path. */
function refuseLookalikes(segment: string): void {
  if (TRAILING_SPACE.test(segment)) refuse('trailing_whitespace')
  if (DOT_LOOKALIKES.test(segment) && !/^\.+$/.test(segment)) refuse('dot_lookalike')
}

function percentDecode(rawPath: string): string {
  const bytes: number[] = []
  for (let index = 0; index < rawPath.length; index++) {
    const char = rawPath.charCodeAt(index)
    if (char !== 0x25) {
      bytes.push(char)
      continue
    }
    const hex = rawPath.slice(index + 1, index + 3)
    if (!HEX.test(hex)) refuse('bad_escape')
    const byte = parseInt(hex, 16)
    if (byte < 0x20 || byte === 0x7f || FORBIDDEN_DECODED.has(byte)) refuse('encoded_reserved')
    bytes.push(byte)
    index += 2
  }
  try {
    return utf8.decode(Uint8Array.from(bytes))
  } catch {
    return refuse('bad_utf8')
  }
}

function encodeSegment(segment: string): string {
  let out = ''
  for (const char of segment) {
    if (SAFE_SEGMENT.test(char)) out += char
    else
      for (const byte of Buffer.from(char, 'utf8'))
        out += '%' + byte.toString(16).toUpperCase().padStart(2, '0')
  }
  return out
}
