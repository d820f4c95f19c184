import type { Middleware } from 'koa'
import type { AuthPipeline } from '../auth/pipeline.js'
import type { AuthModeSummary } from '../config/auth-mode.js'
import type { Config } from '../config/schema.js'
import type { ConnectionWatch } from '../http/connection-watch.js'
import type { ForwardStage } from '../http/stage.js'
import type { GatewayState } from '../http/state.js'
import type { LocalEndpoint } from '../http/upgrade.js'
import type { AcceptPort } from '../http/websocket-acceptor.js'
import type { IdentityEnforcer } from '../identity/identity-enforcer.js'
import type { Logger } from '../logger.js'
import type { ServiceAccountVerifier } from '../service-accounts/service-account-verifier.js'
import type { UpstreamClient } from '../upstream/upstream-client.js'
import type { UpstreamHeaderOptions } from '../upstream/upstream-headers.js'
import type { UpstreamWebSockets } from '../upstream/upstream-websocket.js'
import { a2aStage } from './a2a.js'
import { ComponentCatalog } from './a2a-catalog.js'
import { aguiStage } from './agui.js'
import { discoveryStage } from './discovery-urls.js'
import { mcpChallenge, mcpStage } from './mcp.js'
import { McpHostGuard } from './mcp-host-guard.js'
import { McpToolPolicy } from './mcp-tools.js'
import { upstreamLookup } from './upstream-lookup.js'
import { WorkflowAuthenticator } from './workflow-auth.js'
import { workflowWebSocket } from './workflow-websocket.js'

export { interfaceMappings, publicInterfaceRoutes } from './interface-routes.js'

export interface SurfaceDeps {
  readonly config: Config
  readonly mode: AuthModeSummary
  readonly pipeline: AuthPipeline
  readonly enforcer: IdentityEnforcer
  readonly upstream: UpstreamClient
  readonly upstreamSockets: UpstreamWebSockets
  readonly headerOptions: UpstreamHeaderOptions
  /** Undefined when service accounts are off. */
  readonly serviceAccounts: ServiceAccountVerifier | undefined
  /** Ends WebSockets with their credential. */
  readonly watch: ConnectionWatch
  /** Completes the handshakes of the workflow endpoint (its own frame-size bound). */
  readonly acceptWorkflow: AcceptPort
  readonly logger: Logger
}

export interface Surfaces {
  /** Before authentication: the MCP OAuth challenge, when configured. */
  readonly beforeAuthentication: readonly Middleware<GatewayState>[]
  /** After identity enforcement, in order: MCP, A2A, discovery documents, AG-UI. */
  readonly stages: readonly ForwardStage[]
  /** Upgrades terminated by the gateway, by canonical path. */
  readonly localEndpoints: ReadonlyMap<string, LocalEndpoint>
}

/** The protocol surfaces beyond REST (reference 8): workflow WebSocket, MCP, A2A, AG-UI. */
export function createSurfaces(deps: SurfaceDeps): Surfaces {
  const { config, mode, logger } = deps
  const interfaces = config.interfaces
  const bodyLimits = {
    maxBytes: config.server.max_body_bytes,
    maxDepth: config.server.max_json_depth,
  }
  const { admin_scope: adminScope, user_isolation: userIsolation } = config.auth
  const lookup = upstreamLookup(deps.upstream, deps.headerOptions.upstreamHost)
  const open = mode.mode === 'none'

  const beforeAuthentication: Middleware<GatewayState>[] = []
  const stages: ForwardStage[] = []
  const mcp = interfaces.mcp
  if (mcp.resource_metadata_url !== null) {
    beforeAuthentication.push(mcpChallenge(mcp.path, mcp.resource_metadata_url))
  }
  stages.push(
    mcpStage({
      path: mcp.path,
      inspect: mcp.enabled,
      bodyLimits,
      policy: new McpToolPolicy({ adminScope, userIsolation, lookup }),
      guard: new McpHostGuard({
        open,
        allowedHosts: mcp.allowed_hosts,
        allowedOrigins: mcp.allowed_origins,
      }),
    }),
  )
  if (interfaces.a2a.enabled) {
    stages.push(
      a2aStage({
        prefix: interfaces.a2a.prefix,
        bodyLimits,
        adminScope,
        userIsolation,
        catalog: new ComponentCatalog({ lookup, ttlMs: interfaces.a2a.catalog_ttl_seconds * 1000 }),
        lookup,
      }),
    )
  }
  stages.push(discoveryStage(deps.headerOptions))
  const aguiPaths = new Set(interfaces.agui.endpoints.map(({ prefix }) => `${prefix}/agui`))
  if (aguiPaths.size > 0) stages.push(aguiStage({ paths: aguiPaths, bodyLimits }))

  const localEndpoints = new Map<string, LocalEndpoint>()
  const ws = interfaces.workflow_websocket
  if (ws.enabled) {
    localEndpoints.set(
      ws.path,
      workflowWebSocket({
        accept: deps.acceptWorkflow,
        authenticator: new WorkflowAuthenticator({
          pipeline: deps.pipeline,
          serviceAccounts: deps.serviceAccounts,
          open,
          jwtConfigured: mode.jwtConfigured,
          logger,
        }),
        enforcer: deps.enforcer,
        upstream: deps.upstreamSockets,
        credentials: config.auth,
        gates: { jwtConfigured: mode.jwtConfigured, adminScope, userIsolation },
        requiresAuth: !open,
        watch: deps.watch,
        maxMessageBytes: ws.max_message_bytes,
        maxJsonDepth: config.server.max_json_depth,
        authTimeoutMs: ws.auth_timeout_seconds * 1000,
        logger,
      }),
    )
  }
  return { beforeAuthentication, stages, localEndpoints }
}
