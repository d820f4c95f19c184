import { GatewayError } from '../errors.js'
import { findPin, observe, type FieldPin, type ObservedFields } from './field-pin.js'

/**
 * Field-level rewriting of `name=value` lists (query strings and url-encoded forms). Only the
 * pinned fields change: every other field keeps its exact bytes and its place.
 */
export interface FieldListRewrite {
  readonly text: string
  readonly changed: boolean
  readonly observed: ObservedFields
}

/**
 * `query`: Python's parse_qsl (Starlette query parameters) splits on `&` only. `form`:
 * python-multipart, which parses url-encoded bodies, also splits on `;`.
 */
export type FieldListSyntax = 'query' | 'form'

/** `+` is a space, `%XX` a byte, the bytes UTF-8 (invalid sequences replaced), as Python unquotes. */
export function decodeFormComponent(text: string): string {
  const plain = text.includes('+') ? text.replaceAll('+', ' ') : text
  if (!plain.includes('%')) return plain
  const bytes: number[] = []
  for (let index = 0; index < plain.length; index++) {
    const code = plain.charCodeAt(index)
    if (code === 0x25 && /^[0-9A-Fa-f]{2}$/.test(plain.slice(index + 1, index + 3))) {
      bytes.push(Number.parseInt(plain.slice(index + 1, index + 3), 16))
      index += 2
    } else if (code < 0x100) {
      // The lists are read as latin1, so every character below 0x100 stands for one raw byte.
      bytes.push(code)
    } else {
      bytes.push(...Buffer.from(plain[index] ?? '', 'utf8'))
    }
  }
  return Buffer.from(bytes).toString('utf8')
}

/**
 * A pinned or checked name after a `;` inside a query field: Starlette reads it as part of the
 * previous value, a reader that also splits on `;` (older Python, some proxies) as a field of its
 * own that the pin never replaced. Stricter than AgentOS: refused.
 */
function refuseHiddenField(
  field: string,
  pins: readonly FieldPin[],
  observed: readonly string[],
): void {
  let at = field.indexOf(';')
  while (at !== -1) {
    const next = field.indexOf(';', at + 1)
    const part = field.slice(at + 1, next === -1 ? field.length : next)
    const eq = part.indexOf('=')
    const name = decodeFormComponent(eq === -1 ? part : part.slice(0, eq))
    if (findPin(pins, name) !== undefined || observed.includes(name)) {
      throw new GatewayError('BAD_REQUEST', `Ambiguous query string: ${name} after ";"`, {
        reason: 'identity.query_separator',
      })
    }
    at = next
  }
}

/** The pin's value, or the accepted one every client copy names. */
function chosenValue(pin: FieldPin, sent: readonly string[] | undefined): string {
  const [first] = sent ?? []
  if (first === undefined || pin.accepted?.includes(first) !== true) return pin.value
  return sent?.every((value) => value === first) === true ? first : pin.value
}

/**
 * Removes every client copy of a pinned field (any spelling that decodes to its name) and appends
 * the pinned value; records decoded values of the observed names. `text` is the raw list; for a
 * body it is the latin1 reading of the bytes, so the bytes survive unchanged.
 */
export function rewriteFieldList(
  text: string,
  syntax: FieldListSyntax,
  pins: readonly FieldPin[],
  observed: readonly string[],
): FieldListRewrite {
  // No field to read or remove (a request without a query, the common case): only the pins.
  if (text === '') return pinsOnly(pins)
  const seen = new Map<string, unknown[]>()
  const kept: string[] = []
  const removed = new Set<string>()
  const sent = new Map<string, string[]>()
  let fieldStart = 0
  let separator = ''
  for (let index = 0; text !== '' && index <= text.length; index++) {
    const code = index < text.length ? text.charCodeAt(index) : -1
    if (code !== -1 && code !== 0x26 && !(code === 0x3b && syntax === 'form')) continue
    const field = text.slice(fieldStart, index)
    if (syntax === 'query') refuseHiddenField(field, pins, observed)
    const eq = field.indexOf('=')
    const name = decodeFormComponent(eq === -1 ? field : field.slice(0, eq))
    if (observed.includes(name)) {
      observe(seen, name, decodeFormComponent(eq === -1 ? '' : field.slice(eq + 1)))
    }
    const pin = findPin(pins, name)
    if (pin !== undefined) {
      removed.add(name)
      if (pin.accepted !== undefined)
        observe(sent, name, decodeFormComponent(eq === -1 ? '' : field.slice(eq + 1)))
    } else kept.push(kept.length === 0 ? field : `${separator}${field}`)
    separator = code === -1 ? '' : String.fromCharCode(code)
    fieldStart = index + 1
  }
  const added: string[] = []
  for (const pin of pins) {
    if (pin.always || removed.has(pin.name)) {
      const value = chosenValue(pin, sent.get(pin.name))
      added.push(`${encodeURIComponent(pin.name)}=${encodeURIComponent(value)}`)
    }
  }
  if (removed.size === 0 && added.length === 0) return { text, changed: false, observed: seen }
  const head = kept.join('')
  const tail = added.join('&')
  const joined = head === '' ? tail : tail === '' ? head : `${head}&${tail}`
  return { text: joined, changed: true, observed: seen }
}

const NOTHING_SEEN: ObservedFields = new Map()
const UNCHANGED_EMPTY: FieldListRewrite = Object.freeze({
  text: '',
  changed: false,
  observed: NOTHING_SEEN,
})

/** An empty list rewritten: the pins that always apply, nothing observed. */
function pinsOnly(pins: readonly FieldPin[]): FieldListRewrite {
  let text = ''
  for (const pin of pins) {
    if (!pin.always) continue
    const field = `${encodeURIComponent(pin.name)}=${encodeURIComponent(pin.value)}`
    text = text === '' ? field : `${text}&${field}`
  }
  return text === '' ? UNCHANGED_EMPTY : { text, changed: true, observed: NOTHING_SEEN }
}
