/** MCP streamable HTTP: JSON-RPC 2.0 over POST, answered as JSON or as SSE when accepted. */
import { randomUUID } from 'node:crypto'
import type { AppState, RequestContext } from '../context.js'
import { isJsonObject, stringField, type JsonObject } from '../params.js'
import { sendEmpty, sendJson, startSse } from '../respond.js'
import type { Router } from '../router.js'
import { RUNTIME_VERSION } from './core.js'
import { callTool, MCP_TOOLS } from './mcp-tools.js'

const error = (id: unknown, code: number, message: string): JsonObject => ({
  jsonrpc: '2.0',
  id: id ?? null,
  error: { code, message },
})

function callToolMessage(app: AppState, id: unknown, params: JsonObject | undefined) {
  const name = stringField(params, 'name') ?? ''
  const args = isJsonObject(params?.['arguments']) ? params['arguments'] : {}
  const outcome = callTool(app, name, args)
  if (outcome === undefined) return error(id, -32602, `Unknown tool: ${name}`)
  if ('raised' in outcome) {
    // fastmcp wraps what a tool raised; the MCP SDK answers it as an isError tool result.
    const text = `Error calling tool '${name}': ${outcome.raised}`
    return { jsonrpc: '2.0', id, result: { content: [{ type: 'text', text }], isError: true } }
  }
  const content = [{ type: 'text', text: JSON.stringify(outcome.payload) }]
  const result = { content, structuredContent: outcome.payload, isError: false }
  return { jsonrpc: '2.0', id, result }
}

/** The response to one JSON-RPC message; undefined for notifications and client responses. */
function answer(app: AppState, message: unknown): JsonObject | undefined {
  if (!isJsonObject(message) || message['jsonrpc'] !== '2.0') {
    return error(isJsonObject(message) ? message['id'] : null, -32600, 'Invalid Request')
  }
  const { id, method } = message
  const params = isJsonObject(message['params']) ? message['params'] : undefined
  if (typeof method !== 'string' || id === undefined) return undefined
  switch (method) {
    case 'initialize':
      return {
        jsonrpc: '2.0',
        id,
        result: {
          protocolVersion: stringField(params, 'protocolVersion') ?? '2025-06-18',
          capabilities: { tools: { listChanged: false } },
          serverInfo: { name: 'agentos-demo', version: RUNTIME_VERSION },
        },
      }
    case 'ping':
      return { jsonrpc: '2.0', id, result: {} }
    case 'tools/list':
      return { jsonrpc: '2.0', id, result: { tools: MCP_TOOLS } }
    case 'tools/call':
      return callToolMessage(app, id, params)
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
  const responses = messages
    .map((message) => answer(ctx.app, message))
    .filter((response) => response !== undefined)
  if (responses.length === 0) return sendEmpty(ctx.res, 202)
  const initializes = messages.some(
    (message) => isJsonObject(message) && message['method'] === 'initialize',
  )
  const headers: Record<string, string> = initializes ? { 'mcp-session-id': randomUUID() } : {}
  if ((ctx.req.headers.accept ?? '').includes('text/event-stream')) {
    const sse = startSse(ctx.res, headers, '\r\n')
    for (const response of responses) sse.send(response, 'message')
    return sse.end()
  }
  sendJson(ctx.res, 200, Array.isArray(json) ? responses : responses[0], headers)
}

export function registerMcpRoutes(router: Router): void {
  router.add('POST', '/mcp', mcpPost).add('GET', '/.well-known/mcp/server-card.json', (ctx) =>
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
