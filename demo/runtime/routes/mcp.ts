/** MCP streamable HTTP: JSON-RPC 2.0 over POST, answered as JSON or as SSE when accepted. */
import { randomUUID } from 'node:crypto'
import type { AppState, RequestContext } from '../context.js'
import { isJsonObject, stringField, type JsonObject } from '../params.js'
import { sendEmpty, sendJson, startSse } from '../respond.js'
import type { Router } from '../router.js'
import { RUNTIME_VERSION } from './core.js'
import { DISCOVERY_VERSIONS, HANDSHAKE_VERSIONS, negotiate, shapedResult } from './mcp-protocol.js'
import { callTool, MCP_TOOLS } from './mcp-tools.js'

/** The SDK's transport names an error that answers no readable request `server-error`. */
const error = (id: unknown, code: number, message: string): JsonObject => ({
  jsonrpc: '2.0',
  id: id ?? 'server-error',
  error: { code, message },
})

const SERVER_INFO = { name: 'agentos-demo', version: RUNTIME_VERSION }

/** One JSON-RPC message's context: its id, params and the revision it speaks. */
interface Exchange {
  readonly app: AppState
  readonly id: unknown
  readonly params: JsonObject | undefined
  readonly version: string
}

const reply = (exchange: Exchange, result: JsonObject, cacheable = false): JsonObject => ({
  jsonrpc: '2.0',
  id: exchange.id,
  result: shapedResult(exchange.version, result, cacheable),
})

function callToolMessage(exchange: Exchange) {
  const { app, id, params } = exchange
  const name = stringField(params, 'name') ?? ''
  const args = isJsonObject(params?.['arguments']) ? params['arguments'] : {}
  const outcome = callTool(app, name, args)
  if (outcome === undefined) return error(id, -32602, `Unknown tool: ${name}`)
  if ('raised' in outcome) {
    // fastmcp wraps what a tool raised; the MCP SDK answers it as an isError tool result.
    const text = `Error calling tool '${name}': ${outcome.raised}`
    return reply(exchange, { content: [{ type: 'text', text }], isError: true })
  }
  const content = [{ type: 'text', text: JSON.stringify(outcome.payload) }]
  return reply(exchange, { content, structuredContent: outcome.payload, isError: false })
}

/** The response to one JSON-RPC message; undefined for notifications and client responses. */
function answer(ctx: RequestContext, message: unknown, session: string): JsonObject | undefined {
  if (!isJsonObject(message) || message['jsonrpc'] !== '2.0') {
    return error(isJsonObject(message) ? message['id'] : null, -32600, 'Invalid Request')
  }
  const { id, method } = message
  const params = isJsonObject(message['params']) ? message['params'] : undefined
  if (typeof method !== 'string' || id === undefined) return undefined
  const app = ctx.app
  const exchange = { app, id, params, version: app.mcpSessions.versionOf(ctx.req.headers, message) }
  switch (method) {
    case 'initialize': {
      const protocolVersion = negotiate(stringField(params, 'protocolVersion'))
      app.mcpSessions.open(session, protocolVersion)
      const capabilities = { tools: { listChanged: false } }
      return reply(exchange, { protocolVersion, capabilities, serverInfo: SERVER_INFO })
    }
    case 'server/discover': {
      const supportedVersions = [...DISCOVERY_VERSIONS, ...HANDSHAKE_VERSIONS.toReversed()]
      const capabilities = { tools: { listChanged: false } }
      const _meta = { 'io.modelcontextprotocol/serverInfo': SERVER_INFO }
      return reply(exchange, { _meta, supportedVersions, capabilities }, true)
    }
    case 'ping':
      return reply(exchange, {})
    case 'tools/list':
      return reply(exchange, { tools: MCP_TOOLS }, true)
    case 'tools/call':
      return callToolMessage(exchange)
    default:
      return error(id, -32601, 'Method not found')
  }
}

function mcpPost(ctx: RequestContext): void {
  const { json, problem } = ctx.body
  if (problem !== undefined || json === undefined || (Array.isArray(json) && json.length === 0)) {
    return sendJson(ctx.res, 400, error(null, -32700, 'Parse error'))
  }
  const messages: unknown[] = Array.isArray(json) ? json : [json]
  const session = randomUUID()
  const responses = messages
    .map((message) => answer(ctx, message, session))
    .filter((response) => response !== undefined)
  if (responses.length === 0) return sendEmpty(ctx.res, 202)
  const initializes = messages.some(
    (message) => isJsonObject(message) && message['method'] === 'initialize',
  )
  const headers: Record<string, string> = initializes ? { 'mcp-session-id': session } : {}
  if ((ctx.req.headers.accept ?? '').includes('text/event-stream')) {
    const sse = startSse(ctx.res, headers, '\r\n')
    for (const response of responses) sse.send(response, 'message')
    return sse.end()
  }
  sendJson(ctx.res, 200, Array.isArray(json) ? responses : responses[0], headers)
}

/** The client ends its session; an unknown one is 404, as the SDK's transport answers. */
function mcpDelete(ctx: RequestContext): void {
  const session = ctx.req.headers['mcp-session-id']
  const closed = typeof session === 'string' && ctx.app.mcpSessions.close(session)
  sendEmpty(ctx.res, closed ? 200 : 404)
}

export function registerMcpRoutes(router: Router): void {
  router.add('POST', '/mcp', mcpPost).add('DELETE', '/mcp', mcpDelete)
  router.add('GET', '/.well-known/mcp/server-card.json', (ctx) =>
    sendJson(ctx.res, 200, {
      name: 'agentos-demo',
      version: RUNTIME_VERSION,
      description: 'AgentOS demo runtime MCP server',
      transport: { type: 'streamable-http', url: '/mcp' },
      capabilities: { tools: { listChanged: false } },
      tools: MCP_TOOLS.map((tool) => tool.name),
    }),
  )
}
