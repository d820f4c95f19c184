import { ClientBody, type BodyLimits } from '../../inbound/client-body.js'
import { identifyClient, readInbound, type InboundSettings } from '../../inbound/read-inbound.js'
import type { MatchedRoute } from '../../policy/catalogue/route-catalogue.js'
import type { RequestStep } from '../request-step.js'
import type { GatewayContext } from '../state.js'

/** The route catalogue of the config in force: one match per request. */
export type MatchRoute = (method: string, path: string) => MatchedRoute

/**
 * Establishes who is asking, for which canonical path and which route of the catalogue, once,
 * before any decision; and the request's one body view, which nothing has read yet.
 */
export function requestContext(
  settings: InboundSettings,
  match: MatchRoute,
  bodyLimits: BodyLimits,
): RequestStep {
  return function requestContextStep(ctx: GatewayContext): boolean {
    const state = ctx.state
    const client = identifyClient(ctx.req, settings.trustedProxies)
    state.client = client
    const inbound = readInbound(ctx.req, client, 'http', settings)
    const body = new ClientBody(ctx.req, inbound.headers, bodyLimits)
    state.request = { inbound, route: match(inbound.method, inbound.path), body }
    return true
  }
}
