/**
 * The security suite's shared pieces: attack corpora from test/fixtures/attacks, a gateway in
 * front of the recording demo runtime, and raw HTTP and WebSocket sends that report what the
 * client got AND what the upstream received.
 */
import { readFileSync } from 'node:fs'
import type { Test } from 'tap'
import type {
  AgentRuntime,
  RecordedRequest,
  RecordedWsConnection,
} from '../../demo/runtime/index.js'
import { ADMIN, jwt, K } from '../conformance/fixtures.js'
import { startGateway, type ConfigInput, type TestGateway } from '../helpers/gateway.js'
import { rawExchange, rawRequestHead } from '../helpers/raw-http.js'
import { projectUrl } from '../helpers/project-root.js'

export { ADMIN, jwt, K }

const ATTACKS = projectUrl('test/fixtures/attacks/')

/**
 * `\\`, `\t`, `\r`, `\n`, `\0`, `\xHH` (a byte) and `\u{H…}` (a code point) in a corpus field
 * stand for themselves, so that a corpus can hold any character and still be a plain text file.
 */
export function unescape(field: string): string {
  return field.replace(
    /\\(x[0-9A-Fa-f]{2}|u\{[0-9A-Fa-f]+\}|[\\trn0])/g,
    (_match, code: string) => {
      if (code.startsWith('x')) return String.fromCharCode(parseInt(code.slice(1), 16))
      if (code.startsWith('u')) return String.fromCodePoint(parseInt(code.slice(2, -1), 16))
      return { '\\': '\\', t: '\t', r: '\r', n: '\n', '0': '\0' }[code] as string
    },
  )
}

/** A corpus file: one case per line, fields separated by tabs; blank and `#` lines skipped. */
export function corpus(name: string): string[][] {
  return readFileSync(new URL(name, ATTACKS), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '' && !line.startsWith('#'))
    .map((line) => line.split('\t').map(unescape))
}

export function corpusText(name: string): string {
  return readFileSync(new URL(name, ATTACKS), 'utf8')
}

export function jsonCorpus<T>(name: string): T {
  return JSON.parse(corpusText(name)) as T
}

/** Public and protected routes a path template is expanded with: `{public}`, `{protected}`. */
export const PUBLIC_ROUTES = ['/health', '/info', '/docs', '/openapi.json']
export const PROTECTED_ROUTES = ['/agents/a1', '/config', '/sessions', '/service-accounts']

export function expand(
  template: string,
  publics: readonly string[] = PUBLIC_ROUTES,
  protecteds: readonly string[] = PROTECTED_ROUTES,
): string[] {
  const out: string[] = []
  for (const pub of template.includes('{public}') ? publics : ['']) {
    for (const prot of template.includes('{protected}') ? protecteds : ['']) {
      out.push(template.replaceAll('{public}', pub).replaceAll('{protected}', prot.slice(1)))
    }
  }
  return out
}

/**
 * The gateway under attack: JWT (HS256 with K) with authorization on, the default public routes,
 * `/workflows/ws` relayed (so it is a mapped WebSocket route: GET /workflows/* needs
 * workflows:read) and `/ws/echo` an unmapped one.
 */
export function securedConfig(runtime: AgentRuntime, more: ConfigInput = {}): ConfigInput {
  const auth = (more.auth ?? {}) as ConfigInput
  return {
    ...more,
    upstream: { url: runtime.url, ...((more.upstream ?? {}) as ConfigInput) },
    auth: { verification_keys: [K], algorithm: 'HS256', authorization: true, ...auth },
    service_accounts: { enabled: false, ...((more.service_accounts ?? {}) as ConfigInput) },
    interfaces: {
      workflow_websocket: { enabled: false },
      ...((more.interfaces ?? {}) as ConfigInput),
    },
  }
}

export function securedGateway(
  t: Test,
  runtime: AgentRuntime,
  more: ConfigInput = {},
  env: Record<string, string> = {},
): Promise<TestGateway> {
  return startGateway(t, securedConfig(runtime, more), env)
}

export const WS_HANDSHAKE = [
  'Connection: Upgrade',
  'Upgrade: websocket',
  'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==',
  'Sec-WebSocket-Version: 13',
]

export interface Sent {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
  /** `detail` of a JSON error body. */
  readonly detail: unknown
  /** Every HTTP request the upstream received for this send. */
  readonly upstream: readonly RecordedRequest[]
  /** Every WebSocket the upstream accepted for this send. */
  readonly sockets: readonly RecordedWsConnection[]
  /** Requests whose head reached the upstream, complete or not. */
  readonly started: number
}

function detailOf(body: string): unknown {
  try {
    const parsed = JSON.parse(body) as unknown
    return typeof parsed === 'object' && parsed !== null && 'detail' in parsed
      ? parsed.detail
      : undefined
  } catch {
    return undefined
  }
}

/** Raw bytes on a fresh connection; the runtime's record is cleared first. */
export async function sendRaw(
  gateway: TestGateway,
  runtime: AgentRuntime,
  data: string | Buffer,
): Promise<Sent> {
  runtime.clear()
  const reply = await rawExchange(gateway.port, data)
  return {
    status: reply.status,
    headers: reply.headers,
    body: reply.body,
    detail: detailOf(reply.body),
    upstream: [...runtime.requests],
    sockets: [...runtime.wsConnections],
    started: runtime.started,
  }
}

/** One HTTP request with exactly these header lines (a Host line is added when absent). */
export function send(
  gateway: TestGateway,
  runtime: AgentRuntime,
  method: string,
  target: string,
  lines: readonly string[] = [],
  body = '',
): Promise<Sent> {
  const head = [...lines]
  if (!head.some((line) => /^host:/i.test(line))) head.unshift('Host: portcullis.test')
  if (body !== '') head.push(`Content-Length: ${Buffer.byteLength(body)}`)
  return sendRaw(gateway, runtime, rawRequestHead(method, target, head) + body)
}

/** A WebSocket handshake with these extra header lines; status 101 when accepted. */
export function upgrade(
  gateway: TestGateway,
  runtime: AgentRuntime,
  target: string,
  lines: readonly string[] = [],
): Promise<Sent> {
  return send(gateway, runtime, 'GET', target, [...WS_HANDSHAKE, ...lines])
}

export const INVALID_PATH = 'Invalid request path'

export const bearer = (token: string): string => `Authorization: Bearer ${token}`

/** Refused by the gateway with this status (and detail, when given); the upstream saw nothing. */
export function refused(t: Test, sent: Sent, status: number, detail?: unknown, what = ''): void {
  const label = what === '' ? '' : `${what}: `
  t.equal(sent.status, status, `${label}${status}`)
  if (detail !== undefined) t.same(sent.detail, detail, `${label}detail`)
  t.equal(sent.started, 0, `${label}the upstream saw no request`)
  t.equal(sent.sockets.length, 0, `${label}the upstream saw no WebSocket`)
}

/** Header fields as the upstream received them: lowercased, `_` as `-`, every value in order. */
export function fieldsOf(
  raw: readonly string[] | Readonly<Record<string, string | string[] | undefined>>,
): Map<string, string[]> {
  const pairs: [string, string][] = Array.isArray(raw)
    ? (raw as readonly string[]).flatMap((name, index) =>
        index % 2 === 0
          ? [[name, (raw as readonly string[])[index + 1] ?? ''] as [string, string]]
          : [],
      )
    : Object.entries(raw).flatMap(([name, value]) =>
        (Array.isArray(value) ? value : value === undefined ? [] : [value]).map(
          (item) => [name, item] as [string, string],
        ),
      )
  const fields = new Map<string, string[]>()
  for (const [name, value] of pairs) {
    const key = name.toLowerCase().replaceAll('_', '-')
    fields.set(key, [...(fields.get(key) ?? []), value])
  }
  return fields
}

const IDENTITY_FIELD = /^(x-auth-|x-user-id$)/

/** The identity fields the upstream received (normalized name → values), sorted by name. */
export function identityOf(
  raw: readonly string[] | Readonly<Record<string, string | string[] | undefined>>,
): Record<string, string[]> {
  const out: Record<string, string[]> = {}
  for (const [name, values] of [...fieldsOf(raw)].sort(([a], [b]) => a.localeCompare(b))) {
    if (IDENTITY_FIELD.test(name)) out[name] = values
  }
  return out
}

/** The verified identity of a JWT principal with this subject and these scopes. */
export function verifiedIdentity(sub: string, scopes: readonly string[]): Record<string, string[]> {
  return {
    'x-auth-kind': ['jwt'],
    'x-auth-scopes': [JSON.stringify(scopes)],
    'x-auth-user-id': [sub],
    'x-user-id': [sub],
  }
}

export interface Minted {
  readonly id: string
  readonly token: string
}

/** Mints a service-account token through the gateway's own API with an admin JWT. */
export async function mintToken(
  gateway: TestGateway,
  name: string,
  scopes: readonly string[] = ['agents:read', 'sessions:read'],
): Promise<Minted> {
  const admin = await jwt([ADMIN], { sub: 'ops' })
  const response = await fetch(`${gateway.url}/service-accounts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name, scopes: scopes.map((scope) => ({ scope })) }),
  })
  const body = (await response.json()) as { id?: string; token?: string }
  if (response.status !== 201 || body.token === undefined || body.id === undefined) {
    throw new Error(`mint ${name}: ${response.status} ${JSON.stringify(body)}`)
  }
  return { id: body.id, token: body.token }
}

/** The gateway's own WebSocket URL for `path`. */
export const wsUrl = (gateway: TestGateway, path: string): string =>
  `${gateway.url.replace(/^http/, 'ws')}${path}`
