import { errorHeaders, type GatewayError } from '../errors.js'
import type { MatchedRoute } from '../policy/catalogue/route-catalogue.js'
import { corsErrorHeaders } from './cors.js'
import type { GatewayContext } from './state.js'

/** A surface's own form of a refusal on its routes (the MCP OAuth challenge). */
export type ShapeRefusal = (route: MatchedRoute, refusal: GatewayError) => GatewayError

/** What every refusal on the request path is answered with, per config. */
export interface RefusalSettings {
  readonly allowedOrigins: readonly string[]
  readonly shape?: ShapeRefusal | undefined
}

const JSON_TYPE = 'application/json'

/**
 * The one place a refusal becomes a response: its status, challenge and headers, CORS for an
 * allowed Origin, `{"detail": …}`. A denied decision is answered here directly, as a value: no
 * exception unwinds the middleware chain for the 401s and 429s a flood of bad credentials makes.
 */
export function answerRefusal(
  ctx: GatewayContext,
  thrown: GatewayError,
  settings: RefusalSettings,
): void {
  const route = ctx.state.request?.route
  const error =
    route === undefined || settings.shape === undefined ? thrown : settings.shape(route, thrown)
  const res = ctx.res
  ctx.respond = true
  ctx.status = error.status
  const headers = errorHeaders(error)
  for (const name in headers) res.setHeader(name, headers[name] as string)
  const origin = ctx.req.headers.origin
  const cors = corsErrorHeaders(origin, settings.allowedOrigins)
  if (cors !== undefined) for (const name in cors) res.setHeader(name, cors[name] as string)
  res.setHeader('content-type', JSON_TYPE)
  ctx.body = error.bodyText
  ctx.state.refusal = error
}
