import type { Exchange } from '../exchange.js'
import type { ForwardPlan } from '../../upstream/forward-plan.js'
import type { RequestStep } from '../request-step.js'
import { isLocalAnswer, type ForwardStages, type LocalAnswer } from '../stage.js'
import { admittedOf, requestOf, type GatewayContext } from '../state.js'

/**
 * The exchange's plan and stage steps: what reaches the upstream, or the answer a stage gives
 * itself.
 */
export function planRequest(deps: { exchange: Exchange; stages: ForwardStages }): RequestStep {
  const { exchange, stages } = deps
  return function planRequestStep(ctx: GatewayContext): boolean | Promise<boolean> {
    const outcome = exchange.plan(requestOf(ctx), admittedOf(ctx), stages)
    return outcome instanceof Promise
      ? outcome.then((planned) => proceed(ctx, planned))
      : proceed(ctx, outcome)
  }
}

function proceed(ctx: GatewayContext, outcome: ForwardPlan | LocalAnswer): boolean {
  if (isLocalAnswer(outcome)) {
    answer(ctx, outcome)
    return false
  }
  ctx.state.plan = outcome
  return true
}

function answer(ctx: GatewayContext, local: LocalAnswer): void {
  ctx.state.answered = local
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
