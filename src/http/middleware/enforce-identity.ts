import type { Next } from 'koa'
import type { IdentityEnforcer } from '../../identity/identity-enforcer.js'
import type { GatewayContext } from '../state.js'

/** Decides what identity the upstream sees: headers, pinned query and body, response rewrites. */
export function enforceIdentity(deps: { enforcer: IdentityEnforcer }) {
  return async function enforceIdentityMiddleware(ctx: GatewayContext, next: Next): Promise<void> {
    const state = ctx.state
    const plan = await deps.enforcer.plan({
      principal: state.principal,
      method: ctx.method,
      path: state.inbound.path,
      query: state.inbound.query,
      headers: ctx.req.headers,
      body: ctx.req,
      accessibleIds: state.authorization?.accessibleIds,
      // The pipeline authorizes every request except public ones (excluded routes, preflights).
      public: state.authorization === undefined,
    })
    state.upstreamHeaders = plan.headers
    if (plan.query !== undefined) state.upstreamQuery = plan.query
    if (plan.body !== undefined) state.upstreamBody = plan.body
    if (plan.rewriteResponse !== undefined) state.rewriteResponse = plan.rewriteResponse
    await next()
  }
}
