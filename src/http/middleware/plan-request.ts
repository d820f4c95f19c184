import type { Next } from 'koa'
import type { IdentityEnforcer } from '../../identity/identity-enforcer.js'
import { ClientBody, type BodyLimits } from '../../inbound/client-body.js'
import {
  isLocalAnswer,
  type ForwardStage,
  type ForwardStages,
  type LocalAnswer,
  type StageRequest,
} from '../stage.js'
import type { GatewayContext } from '../state.js'

/**
 * Decides what reaches the upstream: identity enforcement makes the first plan (headers, pinned
 * query, response rewrites), then the stage of the surface the catalogue route names, every stage
 * that claims the matched route and every stage that claims the request's shape turn it into the
 * next, in order; the last plan is the one forwarded. A stage may answer the request instead.
 * Every step that looks into the body reads and edits the request's one body view, created here
 * unread and forwarded with the last plan.
 */
export function planRequest(deps: {
  enforcer: IdentityEnforcer
  stages: ForwardStages
  bodyLimits: BodyLimits
}) {
  const { enforcer, stages, bodyLimits } = deps
  return async function planRequestMiddleware(ctx: GatewayContext, next: Next): Promise<void> {
    const state = ctx.state
    const inbound = state.inbound
    const principal = state.principal
    const authorization = state.authorization
    const body = new ClientBody(ctx.req, inbound.headers, bodyLimits)
    let plan = await enforcer.plan({
      principal,
      method: inbound.method,
      path: inbound.path,
      route: state.match,
      query: inbound.query,
      headers: inbound.headers,
      body,
      accessibleIds: authorization?.accessibleIds,
      // The pipeline authorizes every request except public ones (excluded routes, preflights).
      public: authorization === undefined,
    })
    let request: StageRequest | undefined
    const run = async (stage: ForwardStage): Promise<boolean> => {
      request ??= { inbound, route: state.match, principal, body }
      const outcome = await stage.plan(request, plan)
      if (isLocalAnswer(outcome)) {
        answer(ctx, outcome)
        return false
      }
      plan = outcome
      return true
    }
    const surface = state.match.route?.surface
    const own = surface === undefined ? undefined : stages.bySurface.get(surface)
    if (own !== undefined && !(await run(own))) return
    for (const stage of stages.byRoute) {
      if (stage.claimsRoute(state.match) && !(await run(stage))) return
    }
    for (const stage of stages.byShape) {
      if (stage.claims(inbound.method, inbound.path) && !(await run(stage))) return
    }
    state.plan = plan
    state.body = body
    await next()
  }
}

function answer(ctx: GatewayContext, local: LocalAnswer): void {
  if (local.reason !== undefined) ctx.state.errorReason = local.reason
  if (local.headers !== undefined) ctx.set(local.headers)
  if (local.body === null) {
    // Koa makes a null body a 204 unless the status comes after it.
    ctx.body = null
    ctx.status = local.status
    return
  }
  ctx.status = local.status
  ctx.body = local.body
}
