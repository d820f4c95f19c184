/**
 * Real gateways in front of the demo runtime for the surfaces beyond REST (checklist K, L, M):
 * the reference's fixtures (J, JI, S, O), tokens, accounts and a JSON WebSocket client.
 */
import { randomUUID } from 'node:crypto'
import type { OutgoingHttpHeaders } from 'node:http'
import type { AgentRuntime, RecordedRequest } from '../../../demo/runtime/index.js'
import { mintToken } from '../../../src/service-accounts/token-format.js'
import {
  startGateway,
  type ConfigInput,
  type Teardown,
  type TestGateway,
} from '../../helpers/gateway.js'
import { httpRequest } from '../../helpers/raw-http.js'
import { startRuntime } from '../../helpers/runtime.js'
import { WsClient } from '../../helpers/websocket.js'
import { ADMIN, K, now } from '../../conformance/fixtures.js'

// The checklist's fixtures shared with the conformance suite (K, JWT(sc, sub), an own store).
export { ADMIN, K, ip, jwt, now, oConfig, withDatabase } from '../../conformance/fixtures.js'

/** J: JWT RBAC on, HS256 with K; JI adds user isolation. No database unless added. */
export function jConfig(auth: ConfigInput = {}, more: ConfigInput = {}): ConfigInput {
  return {
    auth: { verification_keys: [K], algorithm: 'HS256', authorization: true, ...auth },
    service_accounts: { enabled: false },
    ...more,
  }
}

/** S: the security key `root-key-5f0c8e2a9b7d4c1e6a3f8b0d`. */
export function sConfig(more: ConfigInput = {}): ConfigInput {
  return {
    auth: { security_key: 'root-key-5f0c8e2a9b7d4c1e6a3f8b0d' },
    service_accounts: { enabled: false },
    ...more,
  }
}

export interface Reply {
  readonly status: number
  readonly headers: Record<string, string | string[] | undefined>
  readonly text: string
  readonly body: unknown
  readonly detail: unknown
  /** What the upstream received for this call; undefined when nothing reached it. */
  readonly upstream: RecordedRequest | undefined
}

export interface CallOptions {
  readonly token?: string
  readonly headers?: OutgoingHttpHeaders
  readonly json?: unknown
  /** A raw body (sent as JSON unless headers say otherwise). */
  readonly raw?: string | Buffer
}

export interface Stack {
  readonly gateway: TestGateway
  readonly runtime: AgentRuntime
  call(method: string, path: string, options?: CallOptions): Promise<Reply>
  /** A WebSocket through the gateway; `path` defaults to /workflows/ws. */
  ws(options?: {
    path?: string
    protocols?: string[]
    headers?: Record<string, string>
  }): Promise<JsonWs>
}

export async function stack(t: Teardown, config: ConfigInput): Promise<Stack> {
  const runtime = await startRuntime(t, { sseIntervalMs: 5 })
  const gateway = await startGateway(t, { ...config, upstream: { url: runtime.url } })
  return {
    gateway,
    runtime,
    call: (method, path, options = {}) => call(gateway, runtime, method, path, options),
    ws: async (options = {}) => {
      const url = `${gateway.url.replace('http', 'ws')}${options.path ?? '/workflows/ws'}`
      return new JsonWs(await WsClient.open(t, url, options.protocols, options.headers))
    },
  }
}

async function call(
  gateway: TestGateway,
  runtime: AgentRuntime,
  method: string,
  path: string,
  options: CallOptions,
): Promise<Reply> {
  const headers: OutgoingHttpHeaders = { ...options.headers }
  if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`
  let body = options.raw
  if (options.json !== undefined) body = JSON.stringify(options.json)
  if (body !== undefined && headers['content-type'] === undefined)
    headers['content-type'] = 'application/json'
  runtime.clear()
  const response = await httpRequest(gateway.url, {
    method,
    path,
    headers,
    ...(body === undefined ? {} : { body }),
  })
  let parsed: unknown
  try {
    parsed = JSON.parse(response.text)
  } catch {
    parsed = undefined
  }
  const detail =
    typeof parsed === 'object' && parsed !== null && 'detail' in parsed ? parsed.detail : undefined
  return {
    status: response.status,
    headers: response.headers,
    text: response.text,
    body: parsed,
    detail,
    upstream: runtime.requests.at(-1),
  }
}

/** A WebSocket client speaking JSON frames. */
export class JsonWs {
  constructor(readonly client: WsClient) {}

  send(message: unknown): void {
    this.client.socket.send(typeof message === 'string' ? message : JSON.stringify(message))
  }

  async next(what = 'a frame'): Promise<Record<string, unknown>> {
    const frame = await this.client.next(what)
    return JSON.parse(String(frame.data)) as Record<string, unknown>
  }

  /** Sends, then returns the next frame. */
  async ask(message: unknown): Promise<Record<string, unknown>> {
    this.send(message)
    return this.next(`the answer to ${JSON.stringify(message)}`)
  }

  closed(): Promise<{ code: number; reason: string }> {
    return this.client.waitClosed()
  }
}

/** Mints a token through `/service-accounts` with a credential allowed to. */
export async function mint(
  s: Stack,
  credential: string,
  name: string,
  scopes?: readonly string[],
): Promise<{ token: string; id: string }> {
  const json: Record<string, unknown> = { name }
  if (scopes !== undefined) json.scopes = scopes.map((scope) => ({ scope }))
  if (scopes?.some((scope) => scope === ADMIN || scope.startsWith('service_accounts')))
    json.allow_privileged_scopes = true
  const reply = await s.call('POST', '/service-accounts', { token: credential, json })
  if (reply.status !== 201) throw new Error(`mint ${name}: ${reply.status} ${reply.text}`)
  const body = reply.body as { token: string; id: string }
  return { token: body.token, id: body.id }
}

/** An account written straight into the store (an open gateway mints for no anonymous caller). */
export async function seed(
  s: Stack,
  name: string,
  scopes: readonly string[],
  expiresAt: number | null = null,
): Promise<{ token: string; id: string }> {
  const store = s.gateway.gateway.serviceAccounts?.store
  if (store === undefined) throw new Error('service accounts are off')
  const minted = mintToken()
  const id = randomUUID()
  await store.create({
    id,
    name,
    userId: null,
    tokenHash: minted.hash,
    tokenPrefix: minted.prefix,
    scopes,
    createdAt: now(),
    expiresAt,
    createdBy: null,
  })
  return { token: minted.token, id }
}

export const GENERIC = {
  event: 'authenticated',
  message: 'Authentication successful. You can now send commands.',
}

/**
 * The run's user as AgentOS's `message:send` answer carries it: `metadata.userId` of the agent
 * message in the task's history.
 */
export function a2aTaskUser(reply: Reply): unknown {
  const result = (reply.body as { result?: { history?: { metadata?: { userId?: unknown } }[] } })
    .result
  return result?.history?.[0]?.metadata?.userId
}

/** The user of a session as the upstream stores it (read from it directly). */
export async function sessionUser(
  s: { readonly runtime: AgentRuntime },
  family: 'agents' | 'teams' | 'workflows',
  sessionId: string,
): Promise<unknown> {
  const type = { agents: 'agent', teams: 'team', workflows: 'workflow' }[family]
  const response = await fetch(`${s.runtime.url}/sessions/${sessionId}?type=${type}`)
  return ((await response.json()) as { user_id?: unknown }).user_id
}

/** The user an AG-UI run was attributed to upstream (its session, named in RUN_STARTED). */
export async function aguiRunUser(s: { readonly runtime: AgentRuntime }, reply: Reply) {
  const line = reply.text.split('\n').find((row) => row.startsWith('data: '))
  if (line === undefined) return undefined
  const { threadId } = JSON.parse(line.slice('data: '.length)) as { threadId: string }
  return sessionUser(s, 'agents', threadId)
}
