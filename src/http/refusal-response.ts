import type { GatewayError } from '../errors.js'
import type { MatchedRoute } from '../policy/catalogue/route-catalogue.js'
import { corsErrorHeaders } from './cors.js'
import { REQUEST_ID } from './request-id.js'
import type { GatewayContext } from './state.js'

/** A surface's own form of a refusal on its routes (the MCP OAuth challenge). */
export type ShapeRefusal = (route: MatchedRoute, refusal: GatewayError) => GatewayError

/** What every refusal on the request path is answered with, per config. */
export interface RefusalSettings {
  readonly allowedOrigins: readonly string[]
  readonly shape?: ShapeRefusal | undefined
}

/**
 * The one place a refusal becomes a response: its status, challenge and headers, CORS for an
 * allowed Origin, `{"detail": …}`, the request's X-Request-Id. A denied decision is answered
 * here directly, as a value: no exception unwinds the middleware chain for the 401s and 429s a
 * flood of bad credentials makes. The answer is written by this function, not by Koa: the
 * error's prepared fields and body in one `writeHead` and `end`, where Koa's response setters
 * and `respond` set each field on its own (see `GatewayError#answerFields`).
 */
export function answerRefusal(
  ctx: GatewayContext,
  thrown: GatewayError,
  settings: RefusalSettings,
): void {
  const route = ctx.state.request?.route
  const error =
    route === undefined || settings.shape === undefined ? thrown : settings.shape(route, thrown)
  ctx.state.refusal = error
  ctx.respond = false
  const res = ctx.res
  // As Koa's `respond` does: a connection that can no longer be written to is not answered.
  if (res.writableEnded || res.socket?.writable === false) {
    res.statusCode = error.status
    return
  }
  const cors = corsErrorHeaders(ctx.req.headers.origin, settings.allowedOrigins)
  const id = ctx.state.client?.requestId
  // Copied by spreading: `slice` of the frozen prepared list takes V8's generic path, about ten
  // times the copy of a plain array.
  const fields = [...error.answerFields]
  if (cors !== undefined) for (const name in cors) fields.push(name, cors[name] as string)
  if (id !== undefined && !res.hasHeader(REQUEST_ID)) fields.push(REQUEST_ID, id)
  res.writeHead(error.status, fields)
  res.end(error.bodyBytes)
}
