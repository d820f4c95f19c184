/**
 * The fixtures of the conformance checklist (docs/agentos-compatibility.md) (J, JI, JA, S, O) as real gateways in front of the demo
 * runtime, and a request helper that reports what the client got AND what the upstream received.
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { OutgoingHttpHeaders } from 'node:http'
import type { Test } from 'tap'
import type { AgentRuntime, RecordedRequest } from '../../demo/runtime/index.js'
import { currentStoreTemplate } from '../helpers/built-gateway.js'
import {
  startGateway,
  type ConfigInput,
  type StartOptions,
  type Teardown,
  type TestGateway,
} from '../helpers/gateway.js'
import { fixtures, signJwt } from '../helpers/jwt.js'
import { httpRequest, jsonReply } from '../helpers/raw-http.js'

/** The checklist's K: the HS256 secret every J-fixture token is signed with. */
export const K = fixtures.hmacSecret()
/** Portcullis's admin scope; the checklist's `agent_os:admin` in the admin role. */
export const ADMIN = 'os:admin'
export const AGENTOS_ADMIN = 'agent_os:admin'

/** `403ip(x)` of the checklist. */
export const ip = (scopes: string): string =>
  `Insufficient permissions. Required scope(s): ${scopes}`

/** J: `authorization: true`, HS256 with K, service id `os-1`, isolation off, no db. */
export function jConfig(auth: ConfigInput = {}, more: ConfigInput = {}): ConfigInput {
  return {
    auth: {
      verification_keys: [K],
      algorithm: 'HS256',
      authorization: true,
      service_id: 'os-1',
      ...auth,
    },
    service_accounts: { enabled: false },
    ...more,
  }
}

/** S: security-key mode with the scheduler token; no db unless `more` says otherwise. */
export function sConfig(more: ConfigInput = {}): ConfigInput {
  return {
    auth: {
      security_key: 'root-key-5f0c8e2a9b7d4c1e6a3f8b0d',
      internal_service_token: 'itok-scheduler-3e9a7c1f5b2d8e4a6c0f',
    },
    service_accounts: { enabled: false },
    ...more,
  }
}

/**
 * O: open on purpose (`auth.open`), as an AgentOS without auth: no JWT source, no security key;
 * `more` brings the service-account store.
 */
export function oConfig(more: ConfigInput): ConfigInput {
  return { ...more, auth: { open: true } }
}

/**
 * An embedded store of its own for one gateway, removed at teardown: a copy of the test run's
 * migrated store template when there is one (it opens 1.5–2 s sooner than an empty directory
 * that the gateway must initialise and migrate), else an empty directory.
 */
export function withDatabase(t: Teardown): ConfigInput {
  const dir = mkdtempSync(join(tmpdir(), 'portcullis-conformance-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const template = currentStoreTemplate()
  if (template === undefined) {
    return { service_accounts: { enabled: true }, database: { data_dir: dir } }
  }
  const copy = join(dir, 'db')
  cpSync(template, copy, { recursive: true })
  return { service_accounts: { enabled: true }, database: { data_dir: copy } }
}

export interface TokenOptions {
  /** Default `alice`; null leaves `sub` out. */
  readonly sub?: string | null
  /** Default now + 1 h; null leaves `exp` out. */
  readonly exp?: number | null
  readonly alg?: string
  readonly key?: string
  readonly claims?: Record<string, unknown>
}

export const now = (): number => Math.floor(Date.now() / 1000)

/** The checklist's `JWT(sc, sub=alice)`: HS256 with K, exp now + 1 h; `undefined` scopes: no claim. */
export function jwt(scopes: unknown, options: TokenOptions = {}): Promise<string> {
  const claims: Record<string, unknown> = { ...options.claims }
  if (scopes !== undefined) claims.scopes = scopes
  const sub = options.sub === undefined ? 'alice' : options.sub
  if (sub !== null) claims.sub = sub
  const exp = options.exp === undefined ? now() + 3600 : options.exp
  if (exp !== null) claims.exp = exp
  return signJwt(claims, { alg: options.alg ?? 'HS256', key: options.key ?? K })
}

export interface CallOptions {
  /** Sent as `Authorization: Bearer <token>`. */
  readonly token?: string
  readonly headers?: OutgoingHttpHeaders
  readonly json?: unknown
  /** Sent url-encoded. */
  readonly form?: Record<string, string>
}

export interface Reply {
  readonly status: number
  readonly headers: Record<string, string | string[] | undefined>
  readonly text: string
  readonly body: unknown
  /** `body.detail` when the body is an object with one. */
  readonly detail: unknown
  /** What the upstream received for this call; undefined when nothing reached it. */
  readonly upstream: RecordedRequest | undefined
}

export interface Stack {
  readonly gateway: TestGateway
  readonly runtime: AgentRuntime
  call(method: string, path: string, options?: CallOptions): Promise<Reply>
}

/** A gateway with `config` in front of `runtime` (shared by the fixtures of one file). */
export async function stack(
  t: Teardown,
  runtime: AgentRuntime,
  config: ConfigInput,
  env: Record<string, string> = {},
  options: StartOptions = {},
): Promise<Stack> {
  const upstream = { ...(config.upstream as object | undefined), url: runtime.url }
  const gateway = await startGateway(t, { ...config, upstream }, env, options)
  return {
    gateway,
    runtime,
    call: (method, path, options = {}) => call(gateway, runtime, method, path, options),
  }
}

/** One request; the runtime's record is cleared first, so `upstream` is this call's (or none). */
export async function call(
  gateway: TestGateway,
  runtime: AgentRuntime,
  method: string,
  path: string,
  options: CallOptions = {},
): Promise<Reply> {
  const headers: OutgoingHttpHeaders = { ...options.headers }
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`
  let body: string | undefined
  if (options.json !== undefined) {
    headers['content-type'] = 'application/json'
    body = JSON.stringify(options.json)
  } else if (options.form !== undefined) {
    headers['content-type'] = 'application/x-www-form-urlencoded'
    body = new URLSearchParams(options.form).toString()
  }
  runtime.clear()
  const response = await httpRequest(gateway.url, {
    method,
    path,
    headers,
    ...(body === undefined ? {} : { body }),
  })
  const upstream = forwardedRequest(runtime.requests, method, path)
  const { body: parsed, detail } = jsonReply(response.text)
  return {
    status: response.status,
    headers: response.headers,
    text: response.text,
    body: parsed,
    detail,
    upstream,
  }
}

/**
 * The one request the gateway forwarded for a call: the upstream may also have seen the gateway's
 * own reads made to decide it (a schedule's stored target, an owner), of other methods or paths.
 */
function forwardedRequest(
  requests: readonly RecordedRequest[],
  method: string,
  path: string,
): RecordedRequest | undefined {
  const target = withoutTrailingSlashes(path)
  const forwarded = requests.filter(
    (request) =>
      request.method === method &&
      (withoutTrailingSlashes(request.rawUrl) === target || request.path === target),
  )
  if (forwarded.length > 1) throw new Error(`${forwarded.length} upstream requests`)
  return forwarded[0]
}

/** A path without its query and trailing slashes, as the gateway forwards it (PATH-1). */
function withoutTrailingSlashes(path: string): string {
  const bare = (path.split('?')[0] ?? '').replace(/\/+$/, '')
  return bare === '' ? '/' : bare
}

/** The ids of a listing body. */
export function ids(body: unknown): unknown[] {
  return Array.isArray(body) ? body.map((item) => (item as { id?: unknown }).id) : []
}

/** A header as the upstream received it (first value). */
export function upstreamHeader(reply: Reply, name: string): string | undefined {
  const value = reply.upstream?.headers[name.toLowerCase()]
  return Array.isArray(value) ? value[0] : value
}

/** Identity header names the upstream received, lowercased, sorted. */
export function identityHeadersSeen(request: RecordedRequest | undefined): string[] {
  const names = new Set<string>()
  for (let index = 0; index < (request?.rawHeaders.length ?? 0); index += 2) {
    const name = (request?.rawHeaders[index] ?? '').toLowerCase().replaceAll('_', '-')
    if (name.startsWith('x-auth-') || name === 'x-user-id') names.add(name)
  }
  return [...names].sort()
}

/** A refusal by the gateway: this status and exact detail, and the upstream saw nothing. */
export function refused(t: Test, reply: Reply, status: number, detail: string): void {
  t.equal(reply.status, status, `status ${status}`)
  t.equal(reply.detail, detail, 'detail')
  t.equal(reply.upstream, undefined, 'the upstream saw nothing')
}

/** The request reached the upstream and its answer came back with this status. */
export function forwarded(t: Test, reply: Reply, status: number, path?: string): void {
  t.equal(reply.status, status, `status ${status}`)
  t.equal(reply.upstream === undefined, false, 'the upstream received it')
  if (path !== undefined) t.equal(reply.upstream?.path, path, 'at the same path')
}
