/**
 * A gateway pinned to the AgentOS 3.0 line in front of the demo runtime in 3.0 mode (an open
 * AgentOS 3.0.0a3), with JWTs, authorization, service accounts on its own embedded store; and a
 * request helper that says what the client got and whether the request itself reached the
 * upstream (the gateway's own lookups are other requests).
 */
import type { OutgoingHttpHeaders } from 'node:http'
import type { Test } from 'tap'
import type { AgentRuntime, RecordedRequest } from '../../../demo/runtime/index.js'
import type { AgentOsLine } from '../../../src/policy/catalogue/agentos-line.js'
import type { ResourceOwners } from '../../../src/service-accounts/resource-owners.js'
import { startGateway, type ConfigInput, type TestGateway } from '../../helpers/gateway.js'
import { fixtures, signJwt } from '../../helpers/jwt.js'
import { httpRequest, jsonReply } from '../../helpers/raw-http.js'
import { startRuntime } from '../../helpers/runtime.js'

export const K = fixtures.hmacSecret()
export const ADMIN = 'os:admin'

/** AgentOS's insufficient-permissions text. */
export const insufficient = (scope: string): string =>
  `Insufficient permissions. Required scope(s): ${scope}`

/** An HS256 JWT signed with K, valid for an hour; `sub` null leaves it out. */
export function token(scopes: readonly string[], sub: string | null): Promise<string> {
  const claims: Record<string, unknown> = { scopes, exp: Math.floor(Date.now() / 1000) + 3600 }
  if (sub !== null) claims.sub = sub
  return signJwt(claims, { alg: 'HS256', key: K })
}

export interface CallOptions {
  readonly token?: string
  readonly json?: unknown
  /** Sent url-encoded. */
  readonly form?: Record<string, string>
  /** Sent as is, with `contentType`. */
  readonly body?: string | Buffer
  readonly contentType?: string
  readonly headers?: OutgoingHttpHeaders
}

export interface Reply {
  readonly status: number
  readonly body: unknown
  readonly text: string
  /** `body.detail` when there is one. */
  readonly detail: unknown
  /** The client's request as the upstream received it (same method and path); undefined if not. */
  readonly forwarded: RecordedRequest | undefined
}

export interface Stack {
  readonly gateway: TestGateway
  readonly runtime: AgentRuntime
  call(method: string, path: string, options?: CallOptions): Promise<Reply>
  /** A request straight to the runtime, past the gateway (rows the gateway never saw made). */
  direct(method: string, path: string, json?: unknown): Promise<Reply>
  /** The gateway's owner records. */
  readonly owners: ResourceOwners
}

export interface StackOptions {
  readonly userIsolation?: boolean
  /** The line the runtime speaks and the gateway is pinned to (3.0 unless given). */
  readonly line?: AgentOsLine
  readonly config?: ConfigInput
}

/** The runtime (3.0 mode) and a gateway pinned to 3.0 in front of it, stopped at teardown. */
export async function start(t: Test, options: StackOptions = {}): Promise<Stack> {
  const line = options.line ?? '3.0'
  const runtime = await startRuntime(t, { agentos: line })
  const gateway = await startGateway(
    t,
    {
      auth: {
        verification_keys: [K],
        algorithm: 'HS256',
        authorization: true,
        user_isolation: options.userIsolation ?? false,
      },
      service_accounts: { enabled: true },
      upstream: { url: runtime.url },
      ...options.config,
    },
    {},
    { agentOsLine: line },
  )
  const owners = gateway.gateway.serviceAccounts?.owners
  if (owners === undefined) throw new Error('service accounts are off')
  return {
    gateway,
    runtime,
    owners,
    call: (method, path, callOptions = {}) => send(gateway.url, runtime, method, path, callOptions),
    direct: (method, path, json) =>
      send(runtime.url, runtime, method, path, json === undefined ? {} : { json }),
  }
}

async function send(
  baseUrl: string,
  runtime: AgentRuntime,
  method: string,
  path: string,
  options: CallOptions,
): Promise<Reply> {
  const headers: OutgoingHttpHeaders = { ...options.headers }
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`
  let body: string | Buffer | undefined
  if (options.json !== undefined) {
    headers['content-type'] = 'application/json'
    body = JSON.stringify(options.json)
  } else if (options.form !== undefined) {
    headers['content-type'] = 'application/x-www-form-urlencoded'
    body = new URLSearchParams(options.form).toString()
  } else if (options.body !== undefined) {
    headers['content-type'] = options.contentType ?? 'application/octet-stream'
    body = options.body
  }
  runtime.clear()
  const response = await httpRequest(baseUrl, {
    method,
    path,
    headers,
    ...(body === undefined ? {} : { body }),
  })
  const { body: parsed, detail } = jsonReply(response.text)
  const bare = path.split('?')[0]
  return {
    status: response.status,
    body: parsed,
    text: response.text,
    detail,
    forwarded: runtime.requests.find(
      (request) => request.method === method && request.path === bare,
    ),
  }
}

/** The gateway answered this status and detail itself: the request never reached the upstream. */
export function refused(t: Test, reply: Reply, status: number, detail: string): void {
  t.equal(reply.status, status, `status ${status}`)
  t.equal(reply.detail, detail, 'detail')
  t.equal(reply.forwarded, undefined, 'the upstream never received it')
}

/** The request reached the upstream, whose answer came back with this status. */
export function passed(t: Test, reply: Reply, status: number): void {
  t.equal(reply.status, status, reply.status === status ? `status ${status}` : reply.text)
  t.not(reply.forwarded, undefined, 'the upstream received it')
}

/** Mints a service account through the gateway's API with an admin token. */
export async function mintAccount(
  stack: Stack,
  adminToken: string,
  name: string,
  scopes: readonly string[],
): Promise<string> {
  const reply = await stack.call('POST', '/service-accounts', {
    token: adminToken,
    json: { name, scopes: scopes.map((scope) => ({ scope })), allow_privileged_scopes: true },
  })
  if (reply.status !== 201) throw new Error(`mint ${name}: ${reply.status} ${reply.text}`)
  return (reply.body as { token: string }).token
}

/** The ids of a paginated listing's rows. */
export function listedIds(body: unknown, idKey: string): unknown[] {
  const data = (body as { data?: unknown } | undefined)?.data
  return Array.isArray(data) ? data.map((row) => (row as Record<string, unknown>)[idKey]) : []
}
