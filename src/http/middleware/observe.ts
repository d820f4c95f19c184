import { performance } from 'node:perf_hooks'
import type { Next } from 'koa'
import type { AccessLog } from '../../access-log.js'
import type { Metrics } from '../../metrics.js'
import type { InFlight } from '../in-flight.js'
import type { GatewayContext } from '../state.js'

/** Access log, request metrics and the in-flight count (which graceful shutdown waits on). */
export function observe(deps: {
  metrics: Metrics
  inFlight: InFlight
  /** Undefined when `logging.access_log` is off. */
  accessLog: AccessLog | undefined
}) {
  const { metrics, inFlight, accessLog } = deps
  return async function observeMiddleware(ctx: GatewayContext, next: Next): Promise<void> {
    const startedAt = performance.now()
    ctx.state.startedAt = startedAt
    inFlight.enter()
    metrics.inFlight.inc()
    try {
      await next()
    } finally {
      inFlight.leave()
      metrics.inFlight.dec()
      const status = ctx.respond === false ? ctx.res.statusCode : ctx.status
      const route = ctx.state.route ?? 'invalid'
      const seconds = (performance.now() - startedAt) / 1000
      metrics.countRequest(ctx.method, route, status, seconds)
      accessLog?.write({
        req_id: ctx.state.requestId,
        method: ctx.method,
        path: ctx.state.target?.path ?? ctx.path.slice(0, 256),
        status,
        duration_ms: Math.round(seconds * 100_000) / 100,
        client: ctx.state.clientAddress,
        route,
        reason: ctx.state.errorReason,
      })
    }
  }
}
