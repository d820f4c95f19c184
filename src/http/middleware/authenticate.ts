import type { Next } from 'koa'
import type { AuthPipeline } from '../../auth/pipeline.js'
import type { GatewayContext } from '../state.js'

/** Builds the transport-free request and lets the decision core authenticate and authorize it. */
export function authenticate(deps: { pipeline: AuthPipeline }) {
  return async function authenticateMiddleware(ctx: GatewayContext, next: Next): Promise<void> {
    const state = ctx.state
    const decision = await deps.pipeline.decide({
      method: ctx.method,
      path: state.target.path,
      query: state.target.query,
      headers: ctx.req.headers,
      rawHeaders: ctx.req.rawHeaders,
      clientAddress: state.clientAddress,
      transport: 'http',
      requestId: state.requestId,
    })
    state.principal = decision.principal
    state.authorization = decision.authorization
    const template = decision.authorization?.route?.template
    if (template !== undefined) state.route = template
    await next()
  }
}
