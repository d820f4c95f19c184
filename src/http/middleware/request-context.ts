import type { Next } from 'koa'
import { ANONYMOUS } from '../../principal.js'
import { identifyClient, readInbound, type InboundSettings } from '../../inbound/read-inbound.js'
import { routeFamily } from '../route-label.js'
import type { GatewayContext } from '../state.js'

/** Establishes who is asking and for which canonical path, once, before any decision. */
export function requestContext(settings: InboundSettings) {
  return async function requestContextMiddleware(ctx: GatewayContext, next: Next): Promise<void> {
    const state = ctx.state
    state.principal = ANONYMOUS
    const client = identifyClient(ctx.req, settings.trustedProxies)
    state.client = client
    ctx.set('x-request-id', client.requestId)
    const inbound = readInbound(ctx.req, client, 'http', settings)
    state.inbound = inbound
    state.route = routeFamily(inbound.path)
    await next()
  }
}
