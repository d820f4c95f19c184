import type { ParameterizedContext } from 'koa'
import type { Readable } from 'node:stream'
import type { Principal } from '../auth/principal.js'
import type { Authorization } from '../policy/authorizer.js'
import type { InboundRequest, RequestClient } from '../inbound/inbound-request.js'
import type { HeaderAdjustments } from './upstream-headers.js'
import type { BufferedResponse } from './upstream-client.js'

/** What the request-context middleware establishes for every later stage. */
export interface GatewayState {
  /** Who asked: known before anything is refused, for X-Request-Id and the access log. */
  client: RequestClient
  /** The request as the decision core sees it (read once, by the inbound adapter). */
  inbound: InboundRequest
  /** Bounded metrics label (route family or template). */
  route: string
  startedAt: number
  /** The verified identity (ANONYMOUS for public routes and open-mode callers). */
  principal: Principal
  /** The authorizer's decision; undefined for public routes. */
  authorization?: Authorization
  /** Internal reason of an error response, for the access log. */
  errorReason?: string
  /** Identity decided by authentication: headers to drop and to inject upstream. */
  upstreamHeaders?: HeaderAdjustments
  /** A rewritten query string (user_id pinning); the client's when absent. */
  upstreamQuery?: string
  /** A rewritten request body (user_id pinning); the client's stream when absent. */
  upstreamBody?: { body: Readable | Buffer; contentType?: string }
  /** Set when the response body must be rewritten (listing filters, /info); buffered then. */
  rewriteResponse?: (response: BufferedResponse) => BufferedResponse
}

export type GatewayContext = ParameterizedContext<GatewayState>
