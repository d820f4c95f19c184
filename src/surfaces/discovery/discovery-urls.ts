import { GatewayError } from '../../errors.js'
import type { BufferedResponse } from '../../upstream/upstream-client.js'
import type { UpstreamHeaderOptions } from '../../upstream/upstream-headers.js'
import type { ShapeStage } from '../../http/stage.js'
import type { InboundRequest } from '../../inbound/inbound-request.js'
import { thenRewriteResponse } from '../../upstream/forward-plan.js'
import { parseJson } from '../common/json.js'

const HOST = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(?::[0-9]{1,5})?$/
const BODY_BOUND_HEADERS = ['content-length', 'etag', 'content-md5', 'digest', 'content-digest']

/** A discovery document: any GET below a `.well-known` segment (A2A cards, MCP and OAuth metadata). */
export function isDiscoveryPath(path: string): boolean {
  return path.includes('/.well-known/')
}

/**
 * AgentOS builds the absolute URLs of its discovery documents from the Host it received
 * (`request.base_url`), which is the upstream's own address unless `upstream.preserve_host`
 * (DISC-1). Relayed documents get those URLs rewritten to the origin the client used, the
 * trusted `X-Forwarded-Proto`/`-Host` honoured; any other host is left alone. The answer is
 * buffered (at most 16 MiB) and asked for uncompressed.
 */
export function discoveryStage(options: UpstreamHeaderOptions): ShapeStage {
  return {
    claims: (method, path) => method === 'GET' && isDiscoveryPath(path),
    plan: async (request, plan) => {
      const headers = request.inbound.headers
      const client = clientOrigin(request.inbound)
      const upstreamHost = options.preserveHost ? (headers.host ?? '') : options.upstreamHost
      return thenRewriteResponse(plan, rewriteOrigins(upstreamHost, client))
    },
  }
}

/** The origin the client addressed, as the forwarded headers the gateway sends upstream say. */
function clientOrigin(inbound: InboundRequest): string {
  const trusted = inbound.peerTrusted
  const headers = inbound.headers
  const proto = (trusted ? firstValue(headers['x-forwarded-proto']) : '').toLowerCase() || 'http'
  const host = (trusted ? firstValue(headers['x-forwarded-host']) : '') || (headers.host ?? '')
  if ((proto !== 'http' && proto !== 'https') || !HOST.test(host)) {
    throw new GatewayError('BAD_REQUEST', 'Invalid Host header', { reason: 'discovery.host' })
  }
  return `${proto}://${host}`
}

function firstValue(value: string | string[] | undefined): string {
  if (value === undefined) return ''
  const list = Array.isArray(value) ? value.join(', ') : value
  const comma = list.indexOf(',')
  return (comma === -1 ? list : list.slice(0, comma)).trim()
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

/** Replaces `http(s)://<upstreamHost>` at the start of every JSON string with `client`. */
export function rewriteOrigins(
  upstreamHost: string,
  client: string,
): (response: BufferedResponse) => BufferedResponse {
  const origin = new RegExp(`^https?://${escapeRegExp(upstreamHost)}(?=[/?#]|$)`, 'i')
  return (response) => {
    if (response.status < 200 || response.status >= 300) return response
    if (response.headers['content-encoding'] !== undefined) return response
    const parsed = parseJson(response.body)
    if (parsed === undefined) return response
    let changed = false
    const visit = (value: unknown): unknown => {
      if (typeof value === 'string') {
        if (!origin.test(value)) return value
        changed = true
        return value.replace(origin, client)
      }
      if (Array.isArray(value)) return value.map(visit)
      if (typeof value === 'object' && value !== null) {
        return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, visit(item)]))
      }
      return value
    }
    let rewritten: unknown
    try {
      rewritten = visit(parsed.value)
    } catch {
      // Nested beyond the stack: relayed as it is rather than failed.
      return response
    }
    if (!changed) return response
    const body = Buffer.from(JSON.stringify(rewritten))
    const headers = { ...response.headers }
    for (const name of BODY_BOUND_HEADERS) delete headers[name]
    return { ...response, headers, body }
  }
}
