/**
 * Real AgentOS routes the demo does not model: each answers 200 with what it was asked, so a test
 * can see that (and how) the gateway let the request through.
 */
import type { RequestContext } from '../context.js'
import { requestedUserId } from '../params.js'
import { sendJson } from '../respond.js'
import type { Method, Router } from '../router.js'

/** Registration order matters where a literal segment shares a position with a parameter. */
const GENERIC_ROUTES: [Method, string][] = [
  ['GET', '/metrics'],
  ['POST', '/metrics/refresh'],
  ['GET', '/metrics/refresh/status'],
  ['GET', '/eval-runs'],
  ['POST', '/eval-runs'],
  ['DELETE', '/eval-runs'],
  ['GET', '/eval-runs/{eval_run_id}'],
  ['PATCH', '/eval-runs/{eval_run_id}'],
  ['GET', '/traces'],
  ['POST', '/traces/search'],
  ['GET', '/traces/{trace_id}'],
  ['GET', '/trace_session_stats'],
  ['GET', '/approvals'],
  ['GET', '/approvals/count'],
  ['GET', '/approvals/{approval_id}'],
  ['DELETE', '/approvals/{approval_id}'],
  ['GET', '/approvals/{approval_id}/status'],
  ['POST', '/approvals/{approval_id}/resolve'],
  ['POST', '/databases/all/migrate'],
  ['POST', '/databases/{db_id}/migrate'],
  ['GET', '/registry'],
]

/** Schedules, which the 2.9 line does not model (3.0: routes/v3/schedules.ts). */
export const SCHEDULE_ROUTES: [Method, string][] = [
  ['GET', '/schedules'],
  ['POST', '/schedules'],
  ['GET', '/schedules/{schedule_id}'],
  ['PATCH', '/schedules/{schedule_id}'],
  ['DELETE', '/schedules/{schedule_id}'],
  ['POST', '/schedules/{schedule_id}/enable'],
  ['POST', '/schedules/{schedule_id}/disable'],
  ['POST', '/schedules/{schedule_id}/trigger'],
  ['GET', '/schedules/{schedule_id}/runs'],
  ['GET', '/schedules/{schedule_id}/runs/{run_id}'],
]

/** Components, which the 2.9 line does not model (3.0: routes/v3/components.ts). */
export const COMPONENT_ROUTES: [Method, string][] = [
  ['GET', '/components'],
  ['POST', '/components'],
  ['GET', '/components/{component_id}'],
  ['PATCH', '/components/{component_id}'],
  ['DELETE', '/components/{component_id}'],
  ['GET', '/components/{component_id}/configs'],
  ['POST', '/components/{component_id}/configs'],
  ['GET', '/components/{component_id}/configs/current'],
  ['GET', '/components/{component_id}/configs/{version}'],
  ['PATCH', '/components/{component_id}/configs/{version}'],
  ['DELETE', '/components/{component_id}/configs/{version}'],
  ['POST', '/components/{component_id}/configs/{version}/set-current'],
]

export function genericEcho(ctx: RequestContext): void {
  sendJson(ctx.res, 200, {
    route: `${ctx.method} ${ctx.template}`,
    path: ctx.path,
    params: ctx.params,
    query: ctx.query,
    user_id: requestedUserId(ctx),
  })
}

export function registerGenericRoutes(
  router: Router,
  routes: readonly [Method, string][] = GENERIC_ROUTES,
): void {
  for (const [method, template] of routes) router.add(method, template, genericEcho)
}
