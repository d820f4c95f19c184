import type { IncomingHttpHeaders } from 'node:http'
import type { ForwardStage, LocalAnswer, StageRequest } from '../../http/stage.js'
import { thenRewriteResponse, type ForwardPlan } from '../../upstream/forward-plan.js'
import { inspectMcpBody, jsonRpcError, NO_REQUEST_ID } from './messages.js'
import type { McpHostGuard } from './host-guard.js'
import { initializeRequest, learnFromInitialize } from './initialize-exchange.js'
import { sessionIdOf, type McpProtocolVersions } from './protocol-versions.js'
import { mergeLocalErrors } from './response.js'
import type { McpToolPolicy } from './tool-policy.js'

export interface McpStageDeps {
  /** false: only the host guard applies; bodies go through unread. */
  readonly inspect: boolean
  readonly policy: McpToolPolicy
  readonly guard: McpHostGuard
  /** What each exchange speaks, so that local answers are valid in it (MCP-8). */
  readonly versions: McpProtocolVersions
}

/**
 * The MCP endpoint after authentication (MCP-7 is the pipeline's: a credential is
 * needed whenever the gateway is not open): the host guard, then the per-tool gate on JSON-RPC
 * `tools/call` requests. A refused call is answered here as AgentOS answers a tool that raised, a
 * tool result with `isError` (HTTP 200) in the protocol version the exchange speaks; the rest of
 * a batch goes upstream and the refusals are merged into its answer. An `initialize` exchange is
 * watched for the version it negotiates, and a DELETE of the session forgets it (MCP-8).
 */
export function mcpStage(deps: McpStageDeps): ForwardStage {
  return { plan: (request, plan) => planMcp(request, plan, deps) }
}

async function planMcp(
  request: StageRequest,
  plan: ForwardPlan,
  deps: McpStageDeps,
): Promise<ForwardPlan | LocalAnswer> {
  const headers = request.inbound.headers
  const refusal = deps.guard.check(headers)
  if (refusal !== undefined) return { status: 400, body: refusal, reason: `mcp.${refusal.error}` }
  if (!deps.inspect) return plan
  if (request.inbound.method === 'DELETE') {
    const session = sessionIdOf(headers['mcp-session-id'])
    if (session !== undefined) deps.versions.forget(session)
    return plan
  }
  if (request.inbound.method !== 'POST') return plan
  const json = await request.body.json()
  if (json === undefined) return plan
  if ('invalid' in json) {
    return {
      status: 400,
      body: jsonRpcError(NO_REQUEST_ID, -32700, 'Parse error'),
      reason: 'mcp.parse_error',
    }
  }
  const body = json.value
  const initialize = initializeRequest(body)
  if (initialize !== undefined) {
    return thenRewriteResponse(plan, learnFromInitialize(deps.versions, initialize))
  }
  const principal = request.principal
  const inspection = await inspectMcpBody(
    body,
    (name, args) => deps.policy.decide(principal, name, args),
    () => deps.versions.versionOf(headers, body),
  )
  if (!inspection.changed) return plan
  if (inspection.forward === undefined) {
    const [single] = inspection.errors
    // Only refused notifications: nothing to answer, as for any notification.
    if (single === undefined) return { status: 202, body: null }
    return answerLocally(headers, inspection.batch ? inspection.errors : single)
  }
  request.body.setJson(inspection.forward)
  if (inspection.errors.length === 0) return plan
  const errors = inspection.errors
  return thenRewriteResponse(plan, (response) => mergeLocalErrors(response, errors))
}

/**
 * A whole request answered here, framed as the upstream's streamable-HTTP transport frames it
 * (MCP-5): one `message` event with CRLF line ends (sse-starlette) when the client accepts an
 * event stream, else JSON. The client's session id is echoed, as the upstream's answers carry it.
 */
function answerLocally(headers: IncomingHttpHeaders, message: unknown): LocalAnswer {
  const echoed: Record<string, string> = {}
  const session = headers['mcp-session-id']
  if (typeof session === 'string' && /^[\x21-\x7e]+$/.test(session)) {
    echoed['mcp-session-id'] = session
  }
  if (!(headers.accept ?? '').toLowerCase().includes('text/event-stream')) {
    return { status: 200, body: message, headers: echoed }
  }
  return {
    status: 200,
    headers: {
      ...echoed,
      'cache-control': 'no-cache, no-transform',
      'content-type': 'text/event-stream; charset=utf-8',
    },
    body: `event: message\r\ndata: ${JSON.stringify(message)}\r\n\r\n`,
  }
}
