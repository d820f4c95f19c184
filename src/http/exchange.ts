import type { Credential } from '../auth/credential.js'
import type { Decision } from '../auth/decision.js'
import type { AuthPipeline } from '../auth/pipeline.js'
import type { IdentityEnforcer } from '../identity/identity-enforcer.js'
import type { ClientBody } from '../inbound/client-body.js'
import type { InboundRequest } from '../inbound/inbound-request.js'
import type { Authorization } from '../policy/authorizer.js'
import type { MatchedRoute } from '../policy/catalogue/route-catalogue.js'
import type { Principal } from '../principal.js'
import type { ForwardPlan } from '../upstream/forward-plan.js'
import {
  isLocalAnswer,
  type ForwardStage,
  type ForwardStages,
  type LocalAnswer,
  type StageRequest,
} from './stage.js'
import { BEARER_SUBPROTOCOL, subprotocolCredential } from './subprotocol-credential.js'
import { offeredProtocols } from './websocket-handshake.js'

/** One request as the exchange sees it, from either transport. */
export interface ExchangeRequest {
  readonly inbound: InboundRequest
  /** The route catalogue's match, made once by the transport. */
  readonly route: MatchedRoute
  /** The request's one body view, read by no one yet (none for an upgrade). */
  readonly body: ClientBody | undefined
}

/** An HTTP request: it has a body, for the identity pins and the forward stages. */
export interface HttpExchangeRequest extends ExchangeRequest {
  readonly body: ClientBody
}

/** What a WebSocket offered besides the credential, and what it is answered. */
export interface OfferedCredential {
  /** The `bearer` subprotocol's token; the header or cookie, when present, wins over it. */
  readonly fallback: Credential | undefined
  /** Subprotocols to offer upstream: the client's, minus any that carried a credential. */
  readonly protocols: readonly string[]
  /** Answered to the client when the upstream selects none (`bearer`, when a token came that way). */
  readonly fallbackProtocol: string | undefined
}

/** A decision that lets the request through, or a principal the workflow socket authenticated. */
export interface Admitted {
  readonly outcome: 'public' | 'allowed'
  readonly principal: Principal
  readonly authorization: Authorization | undefined
}

const NO_SUBPROTOCOL: OfferedCredential = {
  fallback: undefined,
  protocols: [],
  fallbackProtocol: undefined,
}

/**
 * The one exchange: every request, HTTP or WebSocket, is admitted through the same steps, in
 * this order:
 *
 * 1. `credential`: the configured header or cookie; for a WebSocket, else the `bearer`
 *    subprotocol pair (removed from what is offered upstream either way);
 * 2. `decide`: public, allowed or denied (the auth pipeline: verifier chain, auth-mode policy,
 *    authorizer), counted and traced once;
 * 3. `plan`: identity enforcement's forward plan;
 * 4. the forward stages (the route's surface, route stages, shape stages), for HTTP only: every
 *    stage reads a request body or answers with an HTTP response, which an upgrade has neither of.
 *
 * The HTTP middlewares, the upgrade handler and the workflow endpoint all go through here; only the
 * workflow socket decides later, per `authenticate` frame, with the same pipeline.
 */
export class Exchange {
  readonly #pipeline: AuthPipeline
  readonly #enforcer: IdentityEnforcer

  constructor(deps: { pipeline: AuthPipeline; enforcer: IdentityEnforcer }) {
    this.#pipeline = deps.pipeline
    this.#enforcer = deps.enforcer
  }

  /** The catalogue's match for a request, once per request. */
  match(inbound: Pick<InboundRequest, 'method' | 'path'>): MatchedRoute {
    return this.#pipeline.match(inbound)
  }

  /**
   * Step 1 for a WebSocket: the `bearer, <token>` pair among the offered subprotocols (two `bearer`
   * entries are a 400, as two credential headers are). HTTP offers none.
   */
  offered(inbound: InboundRequest): OfferedCredential {
    if (inbound.transport !== 'websocket') return NO_SUBPROTOCOL
    const found = subprotocolCredential(offeredProtocols(inbound))
    return {
      fallback: found.credential,
      protocols: found.protocols,
      // The pair goes even when the header or cookie was used instead: the token is a secret.
      fallbackProtocol: found.credential !== undefined ? BEARER_SUBPROTOCOL : undefined,
    }
  }

  /**
   * Step 1 on its own, for an endpoint that decides later (the workflow socket): the header or
   * cookie, else the subprotocol's token. A repeated header or cookie is a 400 here.
   */
  credential(inbound: InboundRequest, offered: OfferedCredential): Credential | undefined {
    return this.#pipeline.credential(inbound, { fallback: offered.fallback })
  }

  /**
   * Steps 1 and 2: the decision. The header or cookie is read only for a request that is not
   * public (a duplicate on an excluded route is no refusal), the subprotocol's token after it.
   * At once when nothing had to be waited for (AuthPipeline.decide).
   */
  decide(request: ExchangeRequest, offered: OfferedCredential): Decision | Promise<Decision> {
    return this.#pipeline.decide(request.inbound, {
      route: request.route,
      fallback: offered.fallback,
    })
  }

  /**
   * Steps 3 and 4: the forward plan, then the stages in order; the last plan is the one
   * forwarded, unless a stage answers the request itself. The stages are HTTP's: an upgrade has
   * no body for them to read and cannot take an HTTP answer, so it passes none. At once when
   * nothing had to be waited for and no stage claims the request.
   */
  plan(request: ExchangeRequest, admitted: Admitted): ForwardPlan | Promise<ForwardPlan>
  plan(
    request: HttpExchangeRequest,
    admitted: Admitted,
    stages: ForwardStages,
  ): ForwardPlan | LocalAnswer | Promise<ForwardPlan | LocalAnswer>
  plan(
    request: ExchangeRequest,
    admitted: Admitted,
    stages?: ForwardStages,
  ): ForwardPlan | LocalAnswer | Promise<ForwardPlan | LocalAnswer> {
    const { inbound, route } = request
    const plan = this.#enforcer.planNow({
      principal: admitted.principal,
      method: inbound.method,
      path: inbound.path,
      route,
      query: inbound.query,
      headers: inbound.headers,
      body: request.body,
      accessibleIds: admitted.authorization?.accessibleIds,
      public: admitted.outcome === 'public',
    })
    if (stages === undefined || request.body === undefined) return plan
    const claiming = stagesFor(inbound, route, stages)
    if (claiming === NO_STAGES) return plan
    const stageRequest: StageRequest = {
      inbound,
      route,
      principal: admitted.principal,
      body: request.body,
    }
    return runStages(claiming, stageRequest, plan)
  }
}

/** Each stage receives the plan so far; the last plan is forwarded unless one answers. */
async function runStages(
  stages: readonly ForwardStage[],
  request: StageRequest,
  first: ForwardPlan | Promise<ForwardPlan>,
): Promise<ForwardPlan | LocalAnswer> {
  let plan = await first
  for (const stage of stages) {
    const outcome = await stage.plan(request, plan)
    if (isLocalAnswer(outcome)) return outcome
    plan = outcome
  }
  return plan
}

const NO_STAGES: readonly ForwardStage[] = Object.freeze([])

/** The stages that claim a request, in the order they run (NO_STAGES, most often). */
function stagesFor(
  inbound: InboundRequest,
  route: MatchedRoute,
  stages: ForwardStages,
): readonly ForwardStage[] {
  let claiming: ForwardStage[] | undefined
  const surface = route.route?.surface
  const own = surface === undefined ? undefined : stages.bySurface.get(surface)
  if (own !== undefined) claiming = [own]
  for (const stage of stages.byRoute) {
    if (stage.claimsRoute(route)) (claiming ??= []).push(stage)
  }
  for (const stage of stages.byShape) {
    if (stage.claims(inbound.method, inbound.path)) (claiming ??= []).push(stage)
  }
  return claiming ?? NO_STAGES
}
