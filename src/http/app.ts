import Koa from 'koa'
import type { AccessLog } from '../access-log.js'
import type { Logger } from '../logger.js'
import type { Metrics } from '../metrics.js'
import type { BodyLimits } from '../inbound/client-body.js'
import type { InboundSettings } from '../inbound/read-inbound.js'
import type { InFlight } from './in-flight.js'
import type { RefusalSettings } from './refusal-response.js'
import { answerThrown } from './middleware/handle-errors.js'
import { requestObserver } from './middleware/observe.js'
import { requestContext, type MatchRoute } from './middleware/request-context.js'
import { requestPath, type RequestStep } from './request-step.js'
import type { GatewayState } from './state.js'

export interface AppDeps {
  readonly logger: Logger
  readonly metrics: Metrics
  readonly inFlight: InFlight
  readonly inbound: InboundSettings
  /** `server.max_body_bytes` and `server.max_json_depth`, for the request's body view. */
  readonly bodyLimits: BodyLimits
  /** The route catalogue's match, once per request. */
  readonly match: MatchRoute
  /** How refusals are answered (CORS, a surface's own challenge). */
  readonly refusals: RefusalSettings
  readonly accessLog: AccessLog
  /** `logging.access_log`: a line for every request; off, only the gateway's own 5xx (warnings). */
  readonly accessLogOn: boolean
  /** The decision stages (authenticate and authorize, local routes, the forward plan), in order. */
  readonly stages: readonly RequestStep[]
  /** The last stage: forwarding to the upstream. */
  readonly forward: RequestStep
}

/** The HTTP request path, in one visible list. */
export function createApp(deps: AppDeps): Koa<GatewayState> {
  const app = new Koa<GatewayState>({ proxy: false })
  app.silent = true
  app.on('error', (error: unknown) => deps.logger.warn({ err: error }, 'response error'))
  app.use(
    requestPath({
      observer: requestObserver(deps),
      answerThrown: answerThrown({ logger: deps.logger, refusals: deps.refusals }),
      steps: [
        requestContext(deps.inbound, deps.match, deps.bodyLimits),
        ...deps.stages,
        deps.forward,
      ],
    }),
  )
  return app
}
