import type { Readable } from 'node:stream'
import type { InboundRequest } from '../inbound/inbound-request.js'
import { hasBody } from '../inbound/request-body.js'
import type { ForwardPlan } from './forward-plan.js'
import type { UpstreamRequest } from './upstream-client.js'
import { buildUpstreamHeaders, type UpstreamHeaderOptions } from './upstream-headers.js'

/**
 * The request the upstream receives for a client's request under its final plan: the canonical
 * path re-encoded, the plan's query or the client's, the headers built once, the plan's body or
 * the client's stream (when it has one).
 */
export function upstreamRequest(
  inbound: InboundRequest,
  plan: ForwardPlan,
  clientBody: Readable,
  options: UpstreamHeaderOptions,
): UpstreamRequest {
  const query = plan.query ?? inbound.query
  return {
    method: inbound.method,
    path: query === '' ? inbound.forwardPath : `${inbound.forwardPath}?${query}`,
    headers: buildUpstreamHeaders(inbound.rawHeaders, options, inbound, plan),
    body: plan.body?.content ?? (hasBody(inbound.headers) ? clientBody : null),
  }
}
