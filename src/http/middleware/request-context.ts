import type { Next } from 'koa'
import { ANONYMOUS } from '../../auth/principal.js'
import { canonicalizeTarget } from '../canonical-path.js'
import { normalizeAddress, resolveClientAddress, type TrustedProxies } from '../client-address.js'
import { assertConnectionOptions, assertHeaderCount, assertSingleFields } from '../header-limits.js'
import { chooseRequestId } from '../request-id.js'
import { routeFamily } from '../route-label.js'
import type { GatewayContext } from '../state.js'

/** Establishes who is asking and for which canonical path, once, before any decision. */
export function requestContext(deps: { trustedProxies: TrustedProxies; maxHeadersCount: number }) {
  return async function requestContextMiddleware(ctx: GatewayContext, next: Next): Promise<void> {
    const state = ctx.state
    state.principal = ANONYMOUS
    state.peer = normalizeAddress(ctx.req.socket.remoteAddress)
    state.peerTrusted = deps.trustedProxies.has(state.peer)
    state.requestId = chooseRequestId(ctx.req.headers['x-request-id'], state.peerTrusted)
    ctx.set('x-request-id', state.requestId)
    const forwardedFor = ctx.req.headers['x-forwarded-for']
    state.clientAddress = resolveClientAddress(state.peer, forwardedFor, deps.trustedProxies)
    assertHeaderCount(ctx.req.rawHeaders, deps.maxHeadersCount)
    assertSingleFields(ctx.req.rawHeaders)
    assertConnectionOptions(ctx.req.rawHeaders)
    state.target = canonicalizeTarget(ctx.req.url ?? '')
    state.route = routeFamily(state.target.path)
    await next()
  }
}
