import type { Decision } from '../../auth/decision.js'
import type { Exchange } from '../exchange.js'
import { answerRefusal, type RefusalSettings } from '../refusal-response.js'
import type { RequestStep } from '../request-step.js'
import { requestOf, type GatewayContext } from '../state.js'

/** The exchange's credential and decision steps; a denied decision is answered here, not thrown. */
export function authenticate(deps: { exchange: Exchange; refusals: RefusalSettings }): RequestStep {
  const { exchange, refusals } = deps
  return function authenticateStep(ctx: GatewayContext): boolean | Promise<boolean> {
    const request = requestOf(ctx)
    const decision = exchange.decide(request, exchange.offered(request.inbound))
    return decision instanceof Promise
      ? decision.then((decided) => admit(ctx, decided, refusals))
      : admit(ctx, decision, refusals)
  }
}

function admit(ctx: GatewayContext, decision: Decision, refusals: RefusalSettings): boolean {
  ctx.state.decision = decision
  if (decision.outcome === 'denied') {
    answerRefusal(ctx, decision.refusal, refusals)
    return false
  }
  return true
}
