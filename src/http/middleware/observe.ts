import { newRequestId } from '../../inbound/request-id.js'
import { performance } from 'node:perf_hooks'
import type { Socket } from 'node:net'
import type { AccessLog } from '../../access-log.js'
import { normalizeAddress } from '../../inbound/client-address.js'
import type { Metrics } from '../../metrics.js'
import type { Reason } from '../../reasons.js'
import type { ParserRefusal } from '../servers.js'
import type { InFlight } from '../in-flight.js'
import { reasonOf, routeLabel, type GatewayContext } from '../state.js'

/** Records a request's end: its metrics, its access line, and it leaving the in-flight count. */
export interface RequestObserver {
  /** The request entered the path (counted in flight); returns when, for its duration. */
  enter(): number
  /** The request is over (answered, refused or cut): leaves the in-flight count, counted, logged. */
  leave(ctx: GatewayContext, startedAt: number): void
}

/** Access log, request metrics and the in-flight count (which graceful shutdown waits on). */
export function requestObserver(deps: {
  metrics: Metrics
  inFlight: InFlight
  accessLog: AccessLog
  /** `logging.access_log`: off, only warnings (the gateway's own 5xx) are written. */
  accessLogOn: boolean
}): RequestObserver {
  const { metrics, inFlight, accessLog, accessLogOn } = deps
  return {
    enter() {
      inFlight.enter()
      return performance.now()
    },
    leave(ctx, startedAt) {
      inFlight.leave()
      const { status, reason } = outcome(ctx, inFlight)
      const route = routeLabel(ctx.state)
      const seconds = (performance.now() - startedAt) / 1000
      metrics.countRequest(ctx.method, route, status, seconds)
      accessLog.write(
        {
          req_id: ctx.state.client?.requestId ?? newRequestId(),
          method: ctx.method,
          path: ctx.state.request?.inbound.path ?? ctx.path.slice(0, 256),
          status,
          duration_ms: Math.round(seconds * 100_000) / 100,
          client: ctx.state.client?.clientAddress ?? normalizeAddress(ctx.req.socket.remoteAddress),
          route,
          reason,
        },
        accessLogOn,
      )
    },
  }
}

/** nginx's status for a request whose client went away before the response began. */
export const CLIENT_CLOSED_REQUEST = 499

/**
 * The status and reason a request is counted and logged with. A connection that ended before the
 * response was complete is not the status Koa defaulted to (404): the client closing it is 499
 * (`client.gone`), shutdown cutting it after the grace period is 503 (`shutdown.cut`); a response
 * already under way keeps the status it was sent with.
 */
function outcome(
  ctx: GatewayContext,
  inFlight: InFlight,
): { status: number; reason: Reason | undefined } {
  const res = ctx.res
  const status = ctx.respond === false ? res.statusCode : ctx.status
  const reason = reasonOf(ctx.state)
  const ended =
    !res.writableFinished &&
    (res.destroyed || (ctx.req.socket as Socket | null)?.destroyed === true)
  if (!ended || (reason !== undefined && reason !== 'client.gone')) return { status, reason }
  const cut = inFlight.cutting
  return {
    status: res.headersSent ? status : cut ? 503 : CLIENT_CLOSED_REQUEST,
    reason: cut ? 'shutdown.cut' : 'client.gone',
  }
}

/** The method label of a request the parser refused before reading its method. */
const UNPARSED_METHOD = 'UNKNOWN'

/**
 * A request Node's parser refused before any middleware ran is counted and logged like any
 * answer: `method="UNKNOWN"`, `route="invalid"`, an empty path and the parser's reason.
 */
export function observeRefusal(deps: {
  metrics: Metrics
  /** The access log, when `logging.access_log` of the config in force is on. */
  accessLog: () => AccessLog | undefined
}): (refusal: ParserRefusal) => void {
  return (refusal) => {
    deps.metrics.countRequest(UNPARSED_METHOD, 'invalid', refusal.status, 0)
    deps.accessLog()?.write({
      req_id: newRequestId(),
      method: UNPARSED_METHOD,
      path: '',
      status: refusal.status,
      duration_ms: 0,
      client: normalizeAddress(refusal.peer),
      route: 'invalid',
      reason: refusal.reason,
    })
  }
}
