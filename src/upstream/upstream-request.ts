import type { ClientBody } from '../inbound/client-body.js'
import type { InboundRequest } from '../inbound/inbound-request.js'
import { hasBody } from '../inbound/request-body.js'
import type { ForwardPlan } from './forward-plan.js'
import type { UpstreamRequest } from './upstream-client.js'
import { buildUpstreamHeaders, type UpstreamHeaderOptions } from './upstream-headers.js'

/**
 * The request the upstream receives for a client's request under its final plan: the canonical
 * path re-encoded, the plan's query or the client's, the headers built once, the body as the
 * steps left it (serialized here, once) or the client's stream, untouched, when no step read it.
 */
export function upstreamRequest(
  inbound: InboundRequest,
  plan: ForwardPlan,
  body: ClientBody,
  options: UpstreamHeaderOptions,
): UpstreamRequest {
  const query = plan.query ?? inbound.query
  const forwarded = body.forwarded()
  return {
    method: inbound.method,
    path: query === '' ? inbound.forwardPath : `${inbound.forwardPath}?${query}`,
    headers: buildUpstreamHeaders(inbound.rawHeaders, options, inbound, plan, forwarded),
    body: forwarded?.content ?? (hasBody(inbound.headers) ? body.clientStream : null),
  }
}
