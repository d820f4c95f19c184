import type { Middleware } from 'koa'
import type { AuthPipeline } from '../auth/pipeline.js'
import type { AuthModeSummary } from '../config/auth-mode.js'
import type { Config } from '../config/schema.js'
import type { TrustedProxies } from '../inbound/client-address.js'
import type { GatewayState } from '../http/state.js'
import type { UpgradeHandler, LocalUpgradeHandler } from '../http/upgrade.js'
import type { UpstreamClient } from '../http/upstream-client.js'
import type { UpstreamHeaderOptions } from '../http/upstream-headers.js'
import type { IdentityEnforcer } from '../identity/identity-enforcer.js'
import type { Logger } from '../logger.js'
import type { ServiceAccounts } from '../service-accounts/start-service-accounts.js'
import type { Unsubscribe } from '../service-accounts/store.js'
import { a2aStage } from './a2a.js'
import { ComponentCatalog } from './a2a-catalog.js'
import { aguiStage } from './agui.js'
import { discoveryStage } from './discovery-urls.js'
import { CredentialWatch } from './credential-watch.js'
import { mcpChallenge, mcpStage } from './mcp.js'
import { McpHostGuard } from './mcp-host-guard.js'
import { McpToolPolicy } from './mcp-tools.js'
import { upstreamLookup } from './upstream-lookup.js'
import { UpstreamSockets } from './upstream-socket.js'
import { WorkflowAuthenticator } from './workflow-auth.js'
import { workflowWebSocket } from './workflow-websocket.js'

export { interfaceMappings, publicInterfaceRoutes } from './interface-routes.js'
export { CredentialWatch } from './credential-watch.js'

export interface SurfaceDeps {
  readonly config: Config
  readonly mode: AuthModeSummary
  readonly pipeline: AuthPipeline
  readonly enforcer: IdentityEnforcer
  readonly upstream: UpstreamClient
  readonly headerOptions: UpstreamHeaderOptions
  readonly trustedProxies: TrustedProxies
  readonly serviceAccounts: ServiceAccounts | undefined
  readonly logger: Logger
}

export interface Surfaces {
  /** Before authentication: the MCP OAuth challenge, when configured. */
  readonly beforeAuthentication: readonly Middleware<GatewayState>[]
  /** After identity enforcement: MCP, A2A and AG-UI body handling. */
  readonly afterIdentity: readonly Middleware<GatewayState>[]
  /** Upgrades terminated by the gateway, for the UpgradeHandler. */
  readonly localHandlers: ReadonlyMap<string, LocalUpgradeHandler>
  /** Ends long-lived connections with their credential (for relayed upgrades too). */
  readonly watch: CredentialWatch
  /** The handler the local endpoints accept their upgrades with. */
  bindUpgrades(upgrades: UpgradeHandler): void
  /** Subscribes to service-account revocations from every replica. */
  start(): Promise<void>
  stop(): void
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
  const store = deps.serviceAccounts?.store
  const watch = new CredentialWatch(
    store === undefined
      ? {}
      : {
          stillValid: async (hash) => {
            const record = await store.findByTokenHash(hash)
            const now = Date.now() / 1000
            return (
              record !== null && record.revokedAt === null && (record.expiresAt ?? Infinity) > now
            )
          },
        },
  )
  const lookup = upstreamLookup(deps.upstream, deps.headerOptions.upstreamHost)

  const beforeAuthentication: Middleware<GatewayState>[] = []
  const afterIdentity: Middleware<GatewayState>[] = []
  const mcp = interfaces.mcp
  if (mcp.resource_metadata_url !== null) {
    beforeAuthentication.push(mcpChallenge(mcp.path, mcp.resource_metadata_url))
  }
  afterIdentity.push(
    mcpStage({
      path: mcp.path,
      inspect: mcp.enabled,
      bodyLimits,
      policy: new McpToolPolicy({ adminScope, userIsolation, lookup }),
      guard: new McpHostGuard({
        open: mode.mode === 'none',
        allowedHosts: mcp.allowed_hosts,
        allowedOrigins: mcp.allowed_origins,
      }),
    }),
  )
  if (interfaces.a2a.enabled) {
    afterIdentity.push(
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
  afterIdentity.push(discoveryStage(deps.headerOptions))
  const aguiPaths = new Set(interfaces.agui.endpoints.map(({ prefix }) => `${prefix}/agui`))
  if (aguiPaths.size > 0) afterIdentity.push(aguiStage({ paths: aguiPaths, bodyLimits }))

  let upgrades: UpgradeHandler | undefined
  const localHandlers = new Map<string, LocalUpgradeHandler>()
  const ws = interfaces.workflow_websocket
  if (ws.enabled) {
    localHandlers.set(
      ws.path,
      workflowWebSocket({
        upgrades: () => {
          if (upgrades === undefined) throw new Error('surfaces: upgrade handler not bound')
          return upgrades
        },
        authenticator: new WorkflowAuthenticator({
          pipeline: deps.pipeline,
          serviceAccounts: deps.serviceAccounts?.verifier,
          open: mode.mode === 'none',
          jwtConfigured: mode.jwtConfigured,
          logger,
        }),
        enforcer: deps.enforcer,
        sockets: new UpstreamSockets({
          upstreamUrl: config.upstream.url,
          connectTimeoutMs: config.upstream.connect_timeout_ms,
          headerOptions: deps.headerOptions,
        }),
        credentials: config.auth,
        gates: { jwtConfigured: mode.jwtConfigured, adminScope, userIsolation },
        requiresAuth: mode.mode !== 'none',
        watch,
        maxMessageBytes: ws.max_message_bytes,
        maxJsonDepth: config.server.max_json_depth,
        authTimeoutMs: ws.auth_timeout_seconds * 1000,
        logger,
      }),
    )
  }

  const subscriptions: Unsubscribe[] = []
  return {
    beforeAuthentication,
    afterIdentity,
    localHandlers,
    watch,
    bindUpgrades(handler) {
      upgrades = handler
    },
    async start() {
      if (store === undefined) return
      subscriptions.push(await store.onRevocation((event) => watch.revoked(event.tokenHash)))
      subscriptions.push(
        store.onNotificationGap(() => {
          watch.recheck().catch((error: unknown) => {
            logger.warn({ err: error }, 'rechecking WebSocket credentials failed')
          })
        }),
      )
    },
    stop() {
      for (const unsubscribe of subscriptions.splice(0)) unsubscribe()
    },
  }
}
