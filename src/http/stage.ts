import type { Principal } from '../principal.js'
import type { Reason } from '../reasons.js'
import type { ClientBody } from '../inbound/client-body.js'
import type { InboundRequest } from '../inbound/inbound-request.js'
import type { MatchedRoute } from '../policy/catalogue/route-catalogue.js'
import type { SurfaceName } from '../policy/catalogue/route-facts.js'
import type { ForwardPlan } from '../upstream/forward-plan.js'

/** What a forward stage sees of a request: decided on, authenticated, authorized. */
export interface StageRequest {
  readonly inbound: InboundRequest
  /** The route catalogue's match (its route names the surface, its facts what to check). */
  readonly route: MatchedRoute
  readonly principal: Principal
  /** The request's one body: each stage reads and edits it as the stages before it left it. */
  readonly body: ClientBody
}

/** An answer a stage gives itself instead of forwarding the request. */
export interface LocalAnswer {
  readonly status: number
  /** JSON (an object), text, or null for none. */
  readonly body: unknown
  readonly headers?: Readonly<Record<string, string>>
  /** The access log's reason. */
  readonly reason?: Reason
}

/**
 * A step after identity enforcement that may change what reaches the upstream (the MCP, A2A and
 * AG-UI interfaces, discovery documents): it receives the plan so far and returns a new one, or
 * answers the request itself.
 */
export interface ForwardStage {
  plan(request: StageRequest, plan: ForwardPlan): Promise<ForwardPlan | LocalAnswer>
}

/** A stage that takes requests by a shape of its own rather than by catalogue route. */
export interface ShapeStage extends ForwardStage {
  /** A cheap test on the method and canonical path: `plan` runs only for requests it claims. */
  claims(method: string, path: string): boolean
}

/** A stage that takes requests by the facts of their catalogue route (its handler checks). */
export interface RouteStage extends ForwardStage {
  /** A cheap test on the matched route: `plan` runs only for requests it claims. */
  claimsRoute(route: MatchedRoute): boolean
}

/** The stages after identity enforcement, in the order they run. */
export interface ForwardStages {
  /** First, the stage of the surface the matched catalogue route names. */
  readonly bySurface: ReadonlyMap<SurfaceName, ForwardStage>
  /** Then every stage that claims the matched route (AgentOS 3.0's handler checks). */
  readonly byRoute: readonly RouteStage[]
  /** Then every stage that claims the request's shape (discovery documents). */
  readonly byShape: readonly ShapeStage[]
}

export function isLocalAnswer(outcome: ForwardPlan | LocalAnswer): outcome is LocalAnswer {
  return (outcome as Partial<LocalAnswer>).status !== undefined
}
