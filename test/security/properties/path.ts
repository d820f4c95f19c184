/**
 * Properties of the path canonicalizer, judged by a reference decoder written here, apart from
 * src/: the canonical path is idempotent, the forwarded path decodes to the authorized path, and
 * an accepted target means the same thing to every way another server or proxy could read it.
 */
import fc from 'fast-check'
import { GatewayError } from '../../../src/errors.js'
import { canonicalizeTarget, type CanonicalTarget } from '../../../src/inbound/canonical-path.js'

const HEX_PAIR = /^[0-9A-Fa-f]{2}$/
const lenient = new TextDecoder('utf-8')

/** Python's urllib.parse.unquote: valid escapes become bytes, read as UTF-8 with replacement. */
export function referenceUnquote(text: string): string {
  const bytes: number[] = []
  let index = 0
  while (index < text.length) {
    if (text[index] === '%' && HEX_PAIR.test(text.slice(index + 1, index + 3))) {
      bytes.push(Number.parseInt(text.slice(index + 1, index + 3), 16))
      index += 3
    } else {
      const char = String.fromCodePoint(text.codePointAt(index) ?? 0)
      bytes.push(...new TextEncoder().encode(char))
      index += char.length
    }
  }
  return lenient.decode(new Uint8Array(bytes))
}

/** AgentOS's TrailingSlashMiddleware: every trailing slash goes, unless only `/` is left. */
export function stripTrailing(path: string): string {
  let end = path.length
  while (end > 1 && path[end - 1] === '/') end--
  return path.slice(0, end)
}

/** RFC 3986 §5.2.4 remove_dot_segments, on a decoded path. */
function resolveDots(path: string): string {
  const out: string[] = []
  for (const segment of path.split('/').slice(1)) {
    if (segment === '..') out.pop()
    else if (segment !== '.') out.push(segment)
  }
  return `/${out.join('/')}`
}

const withoutParameters = (path: string) =>
  path
    .split('/')
    .map((segment) => segment.split(';')[0])
    .join('/')

/** How other servers and proxies read a raw path. An accepted path must mean the same to all. */
export const READINGS: Readonly<Record<string, (rawPath: string) => string>> = {
  'Starlette: decode once, strip trailing slashes': (raw) => stripTrailing(referenceUnquote(raw)),
  'decode twice': (raw) => stripTrailing(referenceUnquote(referenceUnquote(raw))),
  'WHATWG URL: dot segments and backslashes resolved': (raw) =>
    stripTrailing(referenceUnquote(new URL(raw, 'http://h').pathname)),
  'dot segments resolved after decoding': (raw) =>
    stripTrailing(resolveDots(referenceUnquote(raw))),
  'backslash as a separator': (raw) => stripTrailing(referenceUnquote(raw).replaceAll('\\', '/')),
  'path parameters dropped (Tomcat)': (raw) =>
    stripTrailing(withoutParameters(referenceUnquote(raw))),
  'repeated slashes merged': (raw) => stripTrailing(referenceUnquote(raw).replace(/\/{2,}/g, '/')),
  'NUL ends the path (C strings)': (raw) =>
    stripTrailing(referenceUnquote(raw).split('\0')[0] ?? ''),
  'trailing whitespace trimmed from each segment': (raw) =>
    stripTrailing(
      referenceUnquote(raw)
        .split('/')
        .map((segment) => segment.replace(/[\s\x85]+$/u, ''))
        .join('/'),
    ),
  'dot look-alikes read as dots (NFKC, IDNA stops), dot segments resolved': (raw) =>
    stripTrailing(
      resolveDots(
        referenceUnquote(raw)
          .split('/')
          .map((segment) =>
            /^[\u2024\u2025\u2026\u3002\uFE52\uFF0E\uFF61]+$/u.test(segment)
              ? segment.replace(/[\u3002\uFF61]/gu, '.').normalize('NFKC')
              : segment,
          )
          .join('/'),
      ),
    ),
}

const PIECES = [
  '/',
  '/',
  '/',
  '.',
  '..',
  '...',
  '%2e',
  '%2E',
  '%2f',
  '%2F',
  '%5c',
  '%5C',
  '%25',
  '%252e',
  '%00',
  '%0a',
  '%3b',
  '%3B',
  '%3f',
  '%23',
  ';',
  '\\',
  '#',
  '?',
  '&',
  '=',
  '+',
  ':',
  '@',
  '!',
  "'",
  '*',
  ',',
  '$',
  '(',
  ')',
  '~',
  '-',
  '_',
  'a',
  'A',
  'agents',
  'health',
  'config',
  'service-accounts',
  'admin',
  '%61',
  '%41',
  '%7e',
  '%20',
  '%C3%A9',
  '%c3%a9',
  '%c0%ae',
  '%c0%af',
  '%e0%80%ae',
  '%ff',
  '%ed%a0%80',
  '%ef%bc%8f',
  '%ef%bc%8e',
  '%e2%80%a4',
  '%e2%80%a5',
  '%e3%80%82',
  '%c2%a0',
  '%e3%80%80',
  '%e2%80%af',
  '%',
  '%4',
  '%zz',
  '%u002e',
  'é',
  ' ',
  '\t',
]

/** Raw request targets biased towards the pieces path attacks are made of. */
export const rawTarget: fc.Arbitrary<string> = fc
  .array(
    fc.oneof(
      { weight: 6, arbitrary: fc.constantFrom(...PIECES) },
      {
        weight: 1,
        arbitrary: fc
          .integer({ min: 0, max: 255 })
          .map((b) => `%${b.toString(16).padStart(2, '0')}`),
      },
      { weight: 1, arbitrary: fc.string({ unit: 'grapheme-ascii', maxLength: 3 }) },
    ),
    { maxLength: 14 },
  )
  .map((pieces) => `/${pieces.join('')}`)

function accepted(raw: string): CanonicalTarget | undefined {
  try {
    return canonicalizeTarget(raw)
  } catch (error) {
    if (error instanceof GatewayError && error.code === 'INVALID_PATH') return undefined
    throw error
  }
}

const rawPathOf = (raw: string) => raw.split('?')[0] ?? raw

export const pathProperties = {
  'refusals are always INVALID_PATH, never another error': fc.property(rawTarget, (raw) => {
    accepted(raw)
  }),
  'the canonical path is idempotent': fc.property(rawTarget, (raw) => {
    const first = accepted(raw)
    if (first === undefined) return
    const again = accepted(
      first.query === '' ? first.forwardPath : `${first.forwardPath}?${first.query}`,
    )
    if (again === undefined) throw new Error('the forwarded target is refused')
    if (
      again.path !== first.path ||
      again.forwardPath !== first.forwardPath ||
      again.query !== first.query
    )
      throw new Error(`not idempotent: ${JSON.stringify(again)}`)
  }),
  'the forwarded path decodes to exactly the authorized path': fc.property(rawTarget, (raw) => {
    const target = accepted(raw)
    if (target === undefined) return
    const decoded = stripTrailing(referenceUnquote(target.forwardPath))
    if (decoded !== target.path) throw new Error(`forwarded ${target.forwardPath} reads ${decoded}`)
  }),
  'an accepted target means its canonical path to every reader': fc.property(rawTarget, (raw) => {
    const target = accepted(raw)
    if (target === undefined) return
    for (const [reader, read] of Object.entries(READINGS)) {
      const meaning = read(rawPathOf(raw))
      if (meaning !== target.path) throw new Error(`${reader} reads ${meaning}, not ${target.path}`)
    }
  }),
}
