import { reasonStage } from '../../reasons.js'
import { bearerChallenge, GatewayError, type ErrorCode } from '../../errors.js'
import type { ShapeRefusal } from '../../http/refusal-response.js'

const CHALLENGED: ReadonlySet<number> = new Set([401, 429, 503])

/**
 * With OAuth protected-resource metadata configured, a refused MCP request is what an MCP client
 * expects (RFC 9728): 401 with `WWW-Authenticate: Bearer resource_metadata="…"`, throttling and
 * outages included (MCP-7); a refused token adds `error="invalid_token"` (RFC 6750 §3.1).
 */
export function mcpChallenge(metadataUrl: string): ShapeRefusal {
  const params = { resource_metadata: metadataUrl }
  return (route, error) => {
    if (route.route?.surface !== 'mcp') return error
    const reason = error.reason
    if (!CHALLENGED.has(error.status) || reasonStage(reason) !== 'authentication') return error
    // A throttled or unanswerable token was not found invalid: the bare challenge.
    const code: ErrorCode = error.status === 401 ? error.code : 'CREDENTIALS_MISSING'
    return new GatewayError(code, error.detail, {
      reason,
      cause: error,
      headers: { 'WWW-Authenticate': bearerChallenge(code, params) ?? 'Bearer' },
    })
  }
}
