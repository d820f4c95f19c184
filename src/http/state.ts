import type { ParameterizedContext } from 'koa'
import type { Principal } from '../principal.js'
import type { Reason } from '../reasons.js'
import type { Authorization } from '../policy/authorizer.js'
import type { MatchedRoute } from '../policy/catalogue/route-catalogue.js'
import type { InboundRequest, RequestClient } from '../inbound/inbound-request.js'
import type { ForwardPlan } from '../upstream/forward-plan.js'
import type { ClientBody } from '../inbound/client-body.js'

/** What the request-context middleware establishes for every later stage. */
export interface GatewayState {
  /** Who asked: known before anything is refused, for X-Request-Id and the access log. */
  client: RequestClient
  /** The request as the decision core sees it (read once, by the inbound adapter). */
  inbound: InboundRequest
  /** What the route catalogue knows of the request (matched once). */
  match: MatchedRoute
  /** Bounded metrics label (route family or template). */
  route: string
  startedAt: number
  /** The verified identity (ANONYMOUS for public routes and open-mode callers). */
  principal: Principal
  /** The authorizer's decision; undefined for public routes. */
  authorization?: Authorization
  /** Internal reason of an error response, for the access log. */
  errorReason?: Reason
  /** What reaches the upstream: the last stage's forward plan (set once, before forwarding). */
  plan: ForwardPlan
  /** The request's one body view, which the plan's steps edited (set with `plan`). */
  body: ClientBody
}

export type GatewayContext = ParameterizedContext<GatewayState>
