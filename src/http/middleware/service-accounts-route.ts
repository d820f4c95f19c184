import { GatewayError } from '../../errors.js'
import type {
  ServiceAccountsApi,
  ApiResponse,
} from '../../service-accounts/api/service-accounts-api.js'
import { parseJsonBody } from '../../service-accounts/api/json-body.js'
import { corsErrorHeaders } from '../cors.js'
import { setRequestId } from '../request-id.js'
import type { RequestStep } from '../request-step.js'
import { admittedOf, requestOf, type GatewayContext } from '../state.js'

const BASE = '/service-accounts'
/** Spelled out: a template made of BASE was concatenated (and flattened to compare) per request. */
const BELOW_BASE = '/service-accounts/'
/** Below BASE: every account's events, and one account's (`{id}/events`). */
const EVENTS = 'events'
const NOT_AVAILABLE =
  'Service Accounts not available: pass a `db` to AgentOS to enable this feature.'

interface ServiceAccountsRouteDeps {
  readonly api: ServiceAccountsApi | undefined
  readonly maxJsonDepth: number
  /** `cors.allowed_origins`: answers to an allowed Origin carry AgentOS's CORS headers. */
  readonly allowedOrigins?: readonly string[]
}

/**
 * `/service-accounts` is answered here and never forwarded to the upstream, except CORS
 * preflights: they carry no credential and, as for every other path, the upstream's CORS layer
 * answers them.
 */
export function serviceAccountsRoute(deps: ServiceAccountsRouteDeps): RequestStep {
  return function serviceAccountsStep(ctx: GatewayContext): boolean | Promise<boolean> {
    const path = requestOf(ctx).inbound.path
    if (path !== BASE && !path.startsWith(BELOW_BASE)) return true
    if (isPreflight(ctx)) return true
    return answer(ctx, path, deps)
  }
}

async function answer(
  ctx: GatewayContext,
  path: string,
  deps: ServiceAccountsRouteDeps,
): Promise<false> {
  ctx.state.localRoute = localRoute(path)
  if (deps.api === undefined) {
    throw new GatewayError('STORE_UNAVAILABLE', NOT_AVAILABLE, {
      reason: 'service_accounts.disabled',
    })
  }
  const response = await dispatch(ctx, deps.api, deps, path)
  ctx.status = response.status
  if (response.body !== undefined) ctx.body = response.body
  if (deps.allowedOrigins !== undefined) setCorsHeaders(ctx, deps.allowedOrigins)
  if (response.status === 204) sendEmptyJson(ctx)
  return false
}

/**
 * AgentOS (FastAPI) answers the revoke's 204 with `Content-Type: application/json` and no body;
 * Koa drops the type of every body-less answer, so this one is written directly.
 */
function sendEmptyJson(ctx: GatewayContext): void {
  ctx.respond = false
  setRequestId(ctx)
  ctx.res.setHeader('content-type', 'application/json')
  ctx.res.end()
}

function isPreflight(ctx: GatewayContext): boolean {
  return (
    ctx.method === 'OPTIONS' &&
    ctx.get('origin') !== '' &&
    ctx.get('access-control-request-method') !== ''
  )
}

/**
 * What AgentOS's CORS middleware adds to a route's answer (AUTH-5): errors get theirs
 * where errors become responses.
 */
function setCorsHeaders(ctx: GatewayContext, allowedOrigins: readonly string[]): void {
  const origin = ctx.get('origin')
  // The same allow rule as for error replies.
  if (corsErrorHeaders(origin || undefined, allowedOrigins) === undefined) return
  ctx.set({
    'access-control-allow-origin': origin,
    'access-control-allow-credentials': 'true',
    'access-control-expose-headers': '*',
  })
  ctx.vary('Origin')
}

/** The bounded route label of metrics and the access log. */
function localRoute(path: string): string {
  if (path === BASE) return BASE
  const below = path.slice(BASE.length + 1).split('/')
  if (below.length === 1 && below[0] === EVENTS) return `${BASE}/${EVENTS}`
  if (below.length === 2 && below[1] === EVENTS) return `${BASE}/{id}/${EVENTS}`
  return `${BASE}/{id}`
}

async function dispatch(
  ctx: GatewayContext,
  api: ServiceAccountsApi,
  limits: { maxJsonDepth: number },
  path: string,
): Promise<ApiResponse> {
  const principal = admittedOf(ctx).principal
  const query = () => new URLSearchParams(requestOf(ctx).inbound.query)
  if (path === BASE) {
    if (ctx.method === 'POST') {
      // The request's one body view reads it, bounded by `server.max_body_bytes`.
      const raw = await requestOf(ctx).body.bytes()
      return api.mint(principal, parseJsonBody(raw, limits.maxJsonDepth), requestOf(ctx).inbound)
    }
    if (ctx.method === 'GET') return api.list(principal, query())
    throw methodNotAllowed()
  }
  const [id = '', below, ...deeper] = path.slice(BASE.length + 1).split('/')
  if (below === undefined) {
    // Account ids are uuids: no account is named by `events`, so a GET there is never a read of one.
    if (ctx.method === 'GET' && id === EVENTS) return api.events(principal, query())
    if (ctx.method === 'DELETE') return api.revoke(principal, id, requestOf(ctx).inbound)
    throw methodNotAllowed()
  }
  if (below !== EVENTS || deeper.length > 0)
    throw new GatewayError('NOT_FOUND', 'Not Found', { reason: 'service_accounts.route' })
  if (ctx.method === 'GET') return api.accountEvents(principal, id, query())
  throw methodNotAllowed()
}

function methodNotAllowed(): GatewayError {
  return new GatewayError('METHOD_NOT_ALLOWED', 'Method Not Allowed', {
    reason: 'service_accounts.method',
  })
}
