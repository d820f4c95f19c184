import type { Next } from 'koa'
import type { Exchange } from '../exchange.js'
import { answerRefusal, type RefusalSettings } from '../refusal-response.js'
import { requestOf, type GatewayContext } from '../state.js'

/** The exchange's credential and decision steps; a denied decision is answered here, not thrown. */
export function authenticate(deps: { exchange: Exchange; refusals: RefusalSettings }) {
  const { exchange, refusals } = deps
  return async function authenticateMiddleware(ctx: GatewayContext, next: Next): Promise<void> {
    const request = requestOf(ctx)
    const decision = await exchange.decide(request, exchange.offered(request.inbound))
    ctx.state.decision = decision
    if (decision.outcome === 'denied') {
      answerRefusal(ctx, decision.refusal, refusals)
      return
    }
    await next()
  }
}
