import type { ParameterizedContext } from 'koa'
import type { Readable } from 'node:stream'
import type { Principal } from '../auth/principal.js'
import type { Authorization } from '../policy/authorizer.js'
import type { CanonicalTarget } from './canonical-path.js'
import type { HeaderAdjustments } from './upstream-headers.js'
import type { BufferedResponse } from './upstream-client.js'

/** What the request-context middleware establishes for every later stage. */
export interface GatewayState {
  requestId: string
  /** The socket peer, normalized. */
  peer: string
  peerTrusted: boolean
  clientAddress: string
  target: CanonicalTarget
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
