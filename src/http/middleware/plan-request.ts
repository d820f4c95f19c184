import type { Next } from 'koa'
import type { Exchange } from '../exchange.js'
import { isLocalAnswer, type ForwardStages, type LocalAnswer } from '../stage.js'
import { admittedOf, requestOf, type GatewayContext } from '../state.js'

/**
 * The exchange's plan and stage steps: what reaches the upstream, or the answer a stage gives
 * itself.
 */
export function planRequest(deps: { exchange: Exchange; stages: ForwardStages }) {
  const { exchange, stages } = deps
  return async function planRequestMiddleware(ctx: GatewayContext, next: Next): Promise<void> {
    const outcome = await exchange.plan(requestOf(ctx), admittedOf(ctx), stages)
    if (isLocalAnswer(outcome)) {
      answer(ctx, outcome)
      return
    }
    ctx.state.plan = outcome
    await next()
  }
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
