import type { Next } from 'koa'
import type { Exchange } from '../exchange.js'
import { admittedOf, requestOf, type GatewayContext } from '../state.js'

/** The exchange's credential and decision steps; a denied decision is thrown as its refusal. */
export function authenticate(deps: { exchange: Exchange }) {
  const { exchange } = deps
  return async function authenticateMiddleware(ctx: GatewayContext, next: Next): Promise<void> {
    const request = requestOf(ctx)
    ctx.state.decision = await exchange.decide(request, exchange.offered(request.inbound))
    admittedOf(ctx)
    await next()
  }
}
