import type { Middleware, Next } from 'koa'
import { reasonStage } from '../../reasons.js'
import { bearerChallenge, GatewayError, toGatewayError, type ErrorCode } from '../../errors.js'
import { requestOf, type GatewayContext, type GatewayState } from '../../http/state.js'

const CHALLENGED: ReadonlySet<number> = new Set([401, 429, 503])

/**
 * With OAuth protected-resource metadata configured, a refused MCP request is what an MCP client
 * expects (RFC 9728): 401 with `WWW-Authenticate: Bearer resource_metadata="…"`, throttling and
 * outages included (MCP-7); a refused token adds `error="invalid_token"` (RFC 6750 §3.1). Runs
 * before authentication so it sees its refusals.
 */
export function mcpChallenge(metadataUrl: string): Middleware<GatewayState> {
  const params = { resource_metadata: metadataUrl }
  return async function mcpChallengeMiddleware(ctx: GatewayContext, next: Next): Promise<void> {
    if (requestOf(ctx).route.route?.surface !== 'mcp') {
      await next()
      return
    }
    try {
      await next()
    } catch (thrown) {
      const error = toGatewayError(thrown)
      const reason = error.reason
      if (!CHALLENGED.has(error.status) || reasonStage(reason) !== 'authentication') {
        throw error
      }
      // A throttled or unanswerable token was not found invalid: the bare challenge.
      const code: ErrorCode = error.status === 401 ? error.code : 'CREDENTIALS_MISSING'
      throw new GatewayError(code, error.detail, {
        reason,
        cause: error,
        headers: { 'WWW-Authenticate': bearerChallenge(code, params) ?? 'Bearer' },
      })
    }
  }
}
