import type { Next } from 'koa'
import type { AuthPipeline } from '../../auth/pipeline.js'
import type { GatewayContext } from '../state.js'

/** Lets the decision core authenticate and authorize the transport-free request. */
export function authenticate(deps: { pipeline: AuthPipeline }) {
  return async function authenticateMiddleware(ctx: GatewayContext, next: Next): Promise<void> {
    const state = ctx.state
    const decision = await deps.pipeline.decide(state.inbound, { route: state.match })
    state.principal = decision.principal
    state.authorization = decision.authorization
    const template = decision.authorization?.route?.template
    if (template !== undefined) state.route = template
    await next()
  }
}
