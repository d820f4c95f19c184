import type { AuthPipeline } from '../../auth/pipeline.js'
import type { Config } from '../../config/schema.js'
import type { ConnectionWatch } from '../../http/connection-watch.js'
import type { LocalEndpoint } from '../../http/upgrade.js'
import type { Grants } from '../../policy/grants.js'
import type { AcceptPort } from '../../http/websocket-acceptor.js'
import type { Exchange } from '../../http/exchange.js'
import type { Logger } from '../../logger.js'
import type { UpstreamWebSockets } from '../../upstream/upstream-websocket.js'
import { WorkflowAuthenticator } from './authenticator.js'
import { workflowEndpoint } from './workflow-endpoint.js'

/** The workflow WebSocket (`interfaces.workflow_websocket`): its path and endpoint, or undefined. */
export function workflowSurface(deps: {
  readonly config: Config
  readonly open: boolean
  readonly jwtConfigured: boolean
  readonly pipeline: AuthPipeline
  readonly grants: Grants
  readonly exchange: Exchange
  readonly upstream: UpstreamWebSockets
  readonly accept: AcceptPort
  readonly watch: ConnectionWatch
  readonly logger: Logger
}): readonly [path: string, endpoint: LocalEndpoint] | undefined {
  const { config, open, jwtConfigured, logger } = deps
  const settings = config.interfaces.workflow_websocket
  if (!settings.enabled) return undefined
  const endpoint = workflowEndpoint({
    accept: deps.accept,
    authenticator: new WorkflowAuthenticator({
      pipeline: deps.pipeline,
      jwtConfigured,
      logger,
    }),
    exchange: deps.exchange,
    upstream: deps.upstream,
    gates: { jwtConfigured, grants: deps.grants, userIsolation: config.auth.user_isolation },
    requiresAuth: !open,
    watch: deps.watch,
    maxMessageBytes: settings.max_message_bytes,
    maxJsonDepth: config.server.max_json_depth,
    authTimeoutMs: settings.auth_timeout_seconds * 1000,
    logger,
  })
  return [settings.path, endpoint]
}
