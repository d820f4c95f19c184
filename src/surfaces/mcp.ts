import type { Middleware, Next } from 'koa'
import { GatewayError, toGatewayError, type ErrorCode } from '../errors.js'
import type { GatewayContext, GatewayState } from '../http/state.js'
import { inspectMcpBody, jsonRpcError } from './mcp-messages.js'
import type { McpHostGuard } from './mcp-host-guard.js'
import { mergeLocalErrors } from './mcp-response.js'
import type { McpToolPolicy } from './mcp-tools.js'
import { readRequestJson, replaceRequestJson, type JsonBodyLimits } from './request-json.js'

export interface McpStageDeps {
  readonly path: string
  /** false: only the host guard applies; bodies go through unread. */
  readonly inspect: boolean
  readonly bodyLimits: JsonBodyLimits
  readonly policy: McpToolPolicy
  readonly guard: McpHostGuard
}

export function isMcpPath(mcpPath: string, path: string): boolean {
  return path === mcpPath || path.startsWith(`${mcpPath}/`)
}

/**
 * The MCP endpoint after authentication (spec 5.2 rule 6 is the pipeline's: a credential is
 * needed whenever the gateway is not open): the host guard, then the per-tool gate on JSON-RPC
 * `tools/call` requests. A refused call is answered here as AgentOS answers a tool that raised, a
 * tool result with `isError` (HTTP 200); the rest of a batch goes upstream and the refusals are
 * merged into its answer.
 */
export function mcpStage(deps: McpStageDeps): Middleware<GatewayState> {
  return async function mcpMiddleware(ctx: GatewayContext, next: Next): Promise<void> {
    if (isMcpPath(deps.path, ctx.state.inbound.path) && (await answeredHere(ctx, deps))) return
    await next()
  }
}

/** True when the request got its answer here: a refused host, a parse error, no call left. */
async function answeredHere(ctx: GatewayContext, deps: McpStageDeps): Promise<boolean> {
  const refusal = deps.guard.check(ctx.req.headers)
  if (refusal !== undefined) {
    ctx.status = 400
    ctx.body = refusal
    ctx.state.errorReason = `mcp.${refusal.error}`
    return true
  }
  if (!deps.inspect || ctx.method !== 'POST') return false
  const json = await readRequestJson(ctx, deps.bodyLimits)
  if (json === undefined) return false
  if ('invalid' in json) {
    ctx.status = 400
    ctx.body = jsonRpcError(null, -32700, 'Parse error')
    ctx.state.errorReason = 'mcp.parse_error'
    return true
  }
  const principal = ctx.state.principal
  const inspection = await inspectMcpBody(json.value, (name, args) =>
    deps.policy.decide(principal, name, args),
  )
  if (!inspection.changed) return false
  if (inspection.forward === undefined) {
    const [single] = inspection.errors
    // Only refused notifications: nothing to answer, as for any notification.
    if (single === undefined) {
      // Koa makes a null body a 204 unless the status comes after it.
      ctx.body = null
      ctx.status = 202
    } else {
      answerLocally(ctx, inspection.batch ? inspection.errors : single)
    }
    return true
  }
  replaceRequestJson(ctx, inspection.forward)
  if (inspection.errors.length > 0) {
    const errors = inspection.errors
    ctx.state.rewriteResponse = (response) => mergeLocalErrors(response, errors)
    // The merge reads the upstream's answer, so it must come uncompressed.
    const headers = ctx.state.upstreamHeaders
    ctx.state.upstreamHeaders = {
      ...headers,
      drop: new Set([...(headers?.drop ?? []), 'accept-encoding']),
    }
  }
  return false
}

/**
 * A whole request answered here, framed as the upstream's streamable-HTTP transport frames it
 * (MCP-5): one `message` event with CRLF line ends (sse-starlette) when the client accepts an
 * event stream, else JSON. The client's session id is echoed, as the upstream's answers carry it.
 */
function answerLocally(ctx: GatewayContext, message: unknown): void {
  ctx.status = 200
  const session = ctx.get('mcp-session-id')
  if (session !== '' && /^[\x21-\x7e]+$/.test(session)) ctx.set('mcp-session-id', session)
  if (!ctx.get('accept').toLowerCase().includes('text/event-stream')) {
    ctx.body = message
    return
  }
  ctx.set('cache-control', 'no-cache, no-transform')
  ctx.type = 'text/event-stream'
  ctx.body = `event: message\r\ndata: ${JSON.stringify(message)}\r\n\r\n`
}

const CHALLENGED: ReadonlySet<number> = new Set([401, 429, 503])
const AUTH_REASONS = ['jwt.', 'service_account.', 'security_key.', 'credential.', 'scheduler.']

/**
 * With OAuth protected-resource metadata configured, a refused MCP request is what an MCP client
 * expects (RFC 9728): 401 with `WWW-Authenticate: Bearer resource_metadata="…"`, throttling and
 * outages included (spec 5.2 rule 6). Runs before authentication so it sees its refusals.
 */
export function mcpChallenge(mcpPath: string, metadataUrl: string): Middleware<GatewayState> {
  const challenge = `Bearer resource_metadata="${metadataUrl}"`
  return async function mcpChallengeMiddleware(ctx: GatewayContext, next: Next): Promise<void> {
    if (!isMcpPath(mcpPath, ctx.state.inbound.path)) {
      await next()
      return
    }
    try {
      await next()
    } catch (thrown) {
      const error = toGatewayError(thrown)
      const reason = error.reason ?? ''
      if (!CHALLENGED.has(error.status) || !AUTH_REASONS.some((p) => reason.startsWith(p))) {
        throw error
      }
      const code: ErrorCode = error.status === 401 ? error.code : 'TOKEN_INVALID'
      throw new GatewayError(code, error.detail, {
        reason,
        cause: error,
        headers: { 'WWW-Authenticate': challenge },
      })
    }
  }
}
