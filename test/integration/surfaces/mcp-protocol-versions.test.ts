/**
 * The MCP messages the gateway writes itself, in the protocol revision each client speaks
 * (docs/agentos-compatibility.md MCP-8), driven through the real gateway by the protocol's own
 * clients: `@modelcontextprotocol/sdk` (its newest release, 2025-11-25) and the SDK's 2.x client
 * `@modelcontextprotocol/client` (2025-03-26, 2025-06-18 by request, 2026-07-28 by discovery).
 * A refused tool call must reach each client exactly as the upstream's own tool error does: the
 * demo runtime answers as AgentOS's MCP server for each revision, and the bytes are compared.
 */
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
} from '@modelcontextprotocol/client'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import t, { type Test } from 'tap'
import { isJsonObject, type JsonObject } from '../../../src/surfaces/common/json.js'
import { mcpRevisionSchema } from '../../helpers/mcp-schemas.js'
import { ip, jConfig, jwt, stack, type Stack } from './helpers.js'

const J = await stack(t, jConfig())

/** Every response body a client received, as text, in order. */
type Wire = string[]

/** A fetch that keeps what each POST was answered (the client reads a copy). */
function recording(wire: Wire): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init)
    if (init?.method !== 'POST') return response
    const text = await response.text()
    wire.push(text)
    const { status, statusText, headers } = response
    return new Response(status === 202 ? null : text, { status, statusText, headers })
  }
}

/** The JSON-RPC messages of the recorded answers (JSON bodies and event-stream `data`). */
function messages(wire: Wire): JsonObject[] {
  return wire.flatMap((text) => {
    const bodies = text.startsWith('event:')
      ? text
          .split('\r\n\r\n')
          .flatMap((event) => event.split('\r\n').filter((line) => line.startsWith('data: ')))
          .map((line) => line.slice('data: '.length))
      : [text]
    return bodies.flatMap((body) => {
      try {
        const parsed: unknown = JSON.parse(body)
        return (Array.isArray(parsed) ? parsed : [parsed]).filter(isJsonObject)
      } catch {
        return []
      }
    })
  })
}

/** The tool result on the wire whose text starts with `Error calling tool '<tool>'`. */
function wireResult(wire: Wire, tool: string): JsonObject {
  const found = messages(wire).find((message) => {
    const result = message['result']
    return isJsonObject(result) && JSON.stringify(result).includes(`Error calling tool '${tool}'`)
  })
  if (found === undefined) throw new Error(`no result for ${tool} on the wire`)
  return found
}

/** A result with its text taken out: what must be equal byte for byte. */
function shape(message: JsonObject): string {
  return JSON.stringify(message['result']).replace(/"text":"[^"]*"/, '"text":"…"')
}

interface Session {
  readonly version: string
  readonly wire: Wire
  call(name: string, args: Record<string, unknown>): Promise<JsonObject>
}

/** What both SDKs' clients and transports have in common here. */
interface AnyClient {
  connect(transport: never): Promise<void>
  close(): Promise<void>
  callTool(params: { name: string; arguments: Record<string, unknown> }): Promise<unknown>
}

/** The transport's options: the caller's token, and every answer recorded into `wire`. */
const transportOptions = (token: string, wire: Wire) => ({
  requestInit: { headers: { authorization: `Bearer ${token}` } },
  fetch: recording(wire),
})

async function opened<T>(
  t: Test,
  client: AnyClient,
  transport: T,
  wire: Wire,
  version: () => string | undefined,
): Promise<Session> {
  await client.connect(transport as never)
  t.teardown(() => client.close())
  return {
    version: version() ?? '',
    wire,
    call: async (name, args) => (await client.callTool({ name, arguments: args })) as JsonObject,
  }
}

const MCP_URL = new URL('/mcp', J.gateway.url)
const CLIENT_INFO = { name: 'portcullis-test', version: '1.0.0' }

const connect = {
  /** `@modelcontextprotocol/sdk`: the newest it speaks. */
  async sdk(t: Test, token: string): Promise<Session> {
    const wire: Wire = []
    const transport = new StreamableHTTPClientTransport(MCP_URL, transportOptions(token, wire))
    return opened(t, new Client(CLIENT_INFO), transport, wire, () => transport.protocolVersion)
  },
  /** `@modelcontextprotocol/client`: a 2025-era version by request, or 2026-07-28 by discovery. */
  async modern(t: Test, token: string, version: string): Promise<Session> {
    const wire: Wire = []
    const client = new ModernClient(
      CLIENT_INFO,
      version >= '2026-07-28'
        ? { versionNegotiation: { mode: { pin: version } } }
        : { supportedProtocolVersions: [version] },
    )
    const transport = new ModernTransport(MCP_URL, transportOptions(token, wire))
    return opened(t, client, transport, wire, () => client.getNegotiatedProtocolVersion())
  },
}

const REFUSED = `Error calling tool 'get_agentos_config': ${ip('config:read')}`
const RAISED = "Error calling tool 'run_agent': Agent nope not found"

const CLIENTS: readonly [string, string, (t: Test, token: string) => Promise<Session>][] = [
  ['2025-11-25', '@modelcontextprotocol/sdk', (t, token) => connect.sdk(t, token)],
  [
    '2025-03-26',
    '@modelcontextprotocol/client',
    (t, token) => connect.modern(t, token, '2025-03-26'),
  ],
  [
    '2025-06-18',
    '@modelcontextprotocol/client',
    (t, token) => connect.modern(t, token, '2025-06-18'),
  ],
  [
    '2026-07-28',
    '@modelcontextprotocol/client',
    (t, token) => connect.modern(t, token, '2026-07-28'),
  ],
]

for (const [version, library, open] of CLIENTS) {
  void t.test(`${version} (${library}): a refusal is the upstream's tool error`, async (t) => {
    const session = await open(t, await jwt(['agents:run']))
    t.equal(session.version, version, 'negotiated')
    const refused = await session.call('get_agentos_config', {})
    t.match(refused, { isError: true, content: [{ type: 'text', text: REFUSED }] })
    t.equal(J.runtime.requests.at(-1)?.path, '/mcp')
    const raised = await session.call('run_agent', { agent_id: 'nope', message: 'hi' })
    t.match(raised, { isError: true, content: [{ type: 'text', text: RAISED }] })

    const local = wireResult(session.wire, 'get_agentos_config')
    const upstream = wireResult(session.wire, 'run_agent')
    t.equal(shape(local), shape(upstream), 'the same bytes as the upstream, text aside')
    t.equal('resultType' in (local['result'] as JsonObject), version >= '2026-07-28')
    t.same(mcpRevisionSchema(version).problems('CallToolResultResponse', local), [], 'valid')

    const config = await session.call('get_agentos_config', {})
    t.match(config, { isError: true }, 'the session lives on')
  })
}

/** A raw POST to /mcp with the event stream accepted. */
async function post(s: Stack, token: string, body: unknown, headers: Record<string, string> = {}) {
  return s.call('POST', '/mcp', {
    token,
    json: body,
    headers: { accept: 'application/json, text/event-stream', ...headers },
  })
}

const toolCall = (id: number, name: string, meta?: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: {}, ...(meta === undefined ? {} : { _meta: meta }) },
})

void t.test(
  'a 2025-03-26 client names no version: its shapes, its session echoed, then ended',
  async (t) => {
    const token = await jwt(['agents:run'])
    const initialize = await post(J, token, {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-03-26',
        capabilities: {},
        clientInfo: { name: 'old', version: '1' },
      },
    })
    t.equal(initialize.status, 200)
    t.match(initialize.text, /"protocolVersion":"2025-03-26"/, 'relayed unchanged')
    const session = initialize.headers['mcp-session-id']
    if (typeof session !== 'string') throw new Error('no session')
    const refused = await post(J, token, toolCall(2, 'get_agentos_config'), {
      'mcp-session-id': session,
    })
    t.equal(refused.upstream, undefined, 'answered by the gateway')
    t.equal(
      refused.text,
      `event: message\r\ndata: {"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"${REFUSED}"}],"isError":true}}\r\n\r\n`,
    )
    t.equal(refused.headers['mcp-session-id'], session, 'the session echoed')
    const ended = await J.call('DELETE', '/mcp', { token, headers: { 'mcp-session-id': session } })
    t.equal(ended.status, 200, 'the session ends upstream')
  },
)

void t.test(
  'a version newer than the newest known: the newest shape and one warning',
  async (t) => {
    const token = await jwt(['agents:run'])
    const newer = '2027-03-01'
    const headers = { 'mcp-protocol-version': newer }
    const meta = { 'io.modelcontextprotocol/protocolVersion': newer }
    const warned = () =>
      J.gateway.logs.records().filter((record) => record['mcp_protocol_version'] === newer)
    for (const id of [1, 2]) {
      const refused = await post(J, token, toolCall(id, 'get_agentos_config', meta), headers)
      t.equal(refused.upstream, undefined)
      t.match(refused.text, `"isError":true,"resultType":"complete"}}`)
    }
    t.match(warned(), [{ level: 40, answered_as: '2026-07-28' }])
    t.equal(warned().length, 1, 'once')
  },
)

void t.test('sessions of different versions are answered side by side', async (t) => {
  const token = await jwt(['agents:run'])
  const [old, current] = await Promise.all([
    connect.sdk(t, token),
    connect.modern(t, token, '2026-07-28'),
  ])
  await Promise.all([old.call('get_agentos_config', {}), current.call('get_agentos_config', {})])
  t.equal(
    'resultType' in (wireResult(old.wire, 'get_agentos_config')['result'] as JsonObject),
    false,
  )
  t.equal(
    'resultType' in (wireResult(current.wire, 'get_agentos_config')['result'] as JsonObject),
    true,
  )
})
