import type { RequestClient } from '../inbound/inbound-request.js'
import type { ForwardedBody } from '../inbound/client-body.js'
import type { ForwardPlan } from './forward-plan.js'
import { FieldNames } from '../inbound/field-name.js'
import { HOP_BY_HOP, connectionListed } from './hop-by-hop.js'

/**
 * Headers a client may use to make a backend believe a different path than the one we authorized
 * (test/security/10-forwarded-path-headers.test.ts). Never forwarded, from anyone; matched after normalization, so every case and
 * `_` spelling of these names is dropped too.
 */
export const FORWARDED_PATH_HEADERS: readonly string[] = [
  'x-original-url',
  'x-original-uri',
  'x-original-path',
  'x-rewrite-url',
  'x-rewritten-url',
  'x-forwarded-url',
  'x-forwarded-uri',
  'x-forwarded-path',
  'x-forwarded-prefix',
  'x-envoy-original-path',
]

/** Headers that make some frameworks run a different method than the one authorized. */
export const METHOD_OVERRIDE_HEADERS: readonly string[] = [
  'x-http-method-override',
  'x-http-method',
  'x-method-override',
  'x-original-method',
  'x-forwarded-method',
]

/**
 * Client-address and host headers that other proxies set and some backends believe. The
 * gateway vouches only for the X-Forwarded-For/-Proto/-Host and Forwarded it rebuilds, so a
 * client's copies of these never pass either: the request authorized is the request forwarded.
 */
export const SPOOFABLE_PROXY_HEADERS: readonly string[] = [
  'x-real-ip',
  'true-client-ip',
  'x-client-ip',
  'x-cluster-client-ip',
  'cf-connecting-ip',
  'fastly-client-ip',
  'x-original-forwarded-for',
  'x-forwarded-server',
  'x-forwarded-port',
  'x-host',
  'x-original-host',
]

/** The fields this hop writes itself, from what it can vouch for: the client's are not copied. */
const REBUILT = [
  'host',
  'x-forwarded-for',
  'x-forwarded-proto',
  'x-forwarded-host',
  'forwarded',
  'x-request-id',
]

/** The fields read before the list is built. */
const READ_FIRST = new FieldNames([
  'connection',
  'host',
  'x-forwarded-for',
  'x-forwarded-proto',
  'x-forwarded-host',
  'forwarded',
])

/**
 * The client's fields never copied upstream: removed, or rebuilt by this hop. One set, one lookup
 * a field. undici refuses `expect`; Node has already answered `100-continue` to the client.
 */
const NOT_COPIED = new Set([
  ...HOP_BY_HOP,
  ...FORWARDED_PATH_HEADERS,
  ...METHOD_OVERRIDE_HEADERS,
  ...SPOOFABLE_PROXY_HEADERS,
  'expect',
  ...REBUILT,
])

export interface UpstreamHeaderOptions {
  /** Normalized name prefixes that belong to the gateway's identity namespace (`x-auth-`). */
  readonly identityPrefixes: readonly string[]
  /** Further normalized names treated as identity and stripped from every request. */
  readonly identityNames: ReadonlySet<string>
  readonly preserveHost: boolean
  readonly upstreamHost: string
}

/** Normalizes a field name the way CGI-style backends do: case-insensitive, `_` equal to `-`. */
export function normalizeHeaderName(name: string): string {
  const lower = name.toLowerCase()
  return lower.includes('_') ? lower.replaceAll('_', '-') : lower
}

/**
 * Builds the header list sent upstream from the client's raw headers, in one pass: hop-by-hop
 * fields, fields listed in `Connection`, forwarded-path and method-override fields and every
 * variant of an identity field are removed, with what the plan drops; X-Forwarded-* are rebuilt
 * from what this hop can vouch for; a replaced body gets its length and type; a response to be
 * rewritten is asked for uncompressed; then the plan's verified identity is added. Returns a flat
 * [name, value, …] list as undici accepts it.
 */
export function buildUpstreamHeaders(
  rawHeaders: readonly string[],
  options: UpstreamHeaderOptions,
  client: Pick<RequestClient, 'peer' | 'peerTrusted' | 'requestId'>,
  plan: ForwardPlan,
  body?: ForwardedBody,
): string[] {
  let listed: Set<string> | undefined
  let host: string | undefined
  let forwardedFor: string | undefined
  let forwardedProto: string | undefined
  let forwardedHost: string | undefined
  let forwarded: string | undefined
  for (let index = 0; index < rawHeaders.length; index += 2) {
    const lower = READ_FIRST.find(rawHeaders[index] as string)
    if (lower === undefined) continue
    const value = rawHeaders[index + 1] as string
    if (lower === 'connection') listed = mergeListed(listed, connectionListed(value))
    else if (lower === 'host') host ??= value
    else if (lower === 'x-forwarded-for')
      forwardedFor = forwardedFor === undefined ? value : `${forwardedFor}, ${value}`
    else if (lower === 'x-forwarded-proto') forwardedProto ??= value
    else if (lower === 'x-forwarded-host') forwardedHost ??= value
    else if (lower === 'forwarded')
      forwarded = forwarded === undefined ? value : `${forwarded}, ${value}`
  }

  const { drop, dropCookie, inject } = plan.headers
  const newType = body?.contentType
  // A rewritten response must arrive uncompressed to be read.
  const plainResponse = plan.rewriteResponse !== undefined
  const out: string[] = []
  for (let index = 0; index < rawHeaders.length; index += 2) {
    const name = rawHeaders[index] as string
    const normalized = normalizeHeaderName(name)
    if (NOT_COPIED.has(normalized)) continue
    if (listed?.has(name.toLowerCase()) === true || listed?.has(normalized) === true) continue
    if (isIdentityName(normalized, options)) continue
    if (drop.has(normalized)) continue
    if (body !== undefined) {
      if (normalized === 'content-length') continue
      if (newType !== undefined && normalized === 'content-type') continue
    }
    if (plainResponse && normalized === 'accept-encoding') continue
    let value = rawHeaders[index + 1] as string
    if (normalized === 'cookie' && dropCookie !== undefined) {
      const kept = removeCookie(value, dropCookie)
      if (kept === '') continue
      value = kept
    }
    out.push(name, value)
  }
  if (body !== undefined) {
    if (Buffer.isBuffer(body.content)) out.push('content-length', String(body.content.length))
    if (newType !== undefined) out.push('content-type', newType)
  }

  const trusted = client.peerTrusted
  out.push('host', options.preserveHost && host !== undefined ? host : options.upstreamHost)
  out.push(
    'x-forwarded-for',
    trusted && forwardedFor !== undefined ? `${forwardedFor}, ${client.peer}` : client.peer,
  )
  out.push(
    'x-forwarded-proto',
    // The proxy listener is plain HTTP: TLS ends before it, at a proxy that says so when trusted.
    trusted && forwardedProto !== undefined ? firstValue(forwardedProto) : 'http',
  )
  const originalHost = trusted && forwardedHost !== undefined ? firstValue(forwardedHost) : host
  if (originalHost !== undefined) out.push('x-forwarded-host', originalHost)
  if (trusted && forwarded !== undefined) out.push('forwarded', forwarded)
  out.push('x-request-id', client.requestId)
  // Indexed, not `for (const [name, value] of …)`: destructuring each pair ran the array iterator
  // protocol, about 0.35 KB of iterator objects a request for a service account's identity fields.
  for (let index = 0; index < inject.length; index++) {
    const field = inject[index] as readonly [string, string]
    out.push(field[0], field[1])
  }
  return out
}

export function isIdentityName(normalized: string, options: UpstreamHeaderOptions): boolean {
  if (options.identityNames.has(normalized)) return true
  for (const prefix of options.identityPrefixes) if (normalized.startsWith(prefix)) return true
  return false
}

function mergeListed(
  into: Set<string> | undefined,
  more: Set<string> | undefined,
): Set<string> | undefined {
  if (more === undefined) return into
  if (into === undefined) return more
  for (const name of more) into.add(name)
  return into
}

function firstValue(list: string): string {
  const comma = list.indexOf(',')
  return (comma === -1 ? list : list.slice(0, comma)).trim()
}

function removeCookie(header: string, name: string): string {
  return header
    .split(';')
    .filter((pair) => {
      const eq = pair.indexOf('=')
      return (eq === -1 ? pair : pair.slice(0, eq)).trim() !== name
    })
    .map((pair) => pair.trim())
    .join('; ')
}
