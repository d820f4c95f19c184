import type { AuthPipeline } from '../auth/pipeline.js'
import type { AuthModeSummary } from '../config/auth-mode.js'
import type { Config } from '../config/schema.js'
import type { ConnectionWatch } from '../http/connection-watch.js'
import type { ForwardStage, ForwardStages } from '../http/stage.js'
import type { ShapeRefusal } from '../http/refusal-response.js'
import type { LocalEndpoint } from '../http/upgrade.js'
import type { Exchange } from '../http/exchange.js'
import type { AcceptPort } from '../http/websocket-acceptor.js'
import type { Logger } from '../logger.js'
import type { McpProtocolVersions } from './mcp/protocol-versions.js'
import type { RouteCatalogue } from '../policy/catalogue/route-catalogue.js'
import type { SurfaceName } from '../policy/catalogue/route-facts.js'
import type { Grants } from '../policy/grants.js'
import type { ResourceOwners } from '../service-accounts/resource-owners.js'
import type { UpstreamClient } from '../upstream/upstream-client.js'
import type { UpstreamHeaderOptions } from '../upstream/upstream-headers.js'
import type { UpstreamWebSockets } from '../upstream/upstream-websocket.js'
import { a2aSurface } from './a2a/index.js'
import { aguiSurface } from './agui/index.js'
import { upstreamLookup } from './common/upstream-lookup.js'
import { discoverySurface } from './discovery/index.js'
import { handlerChecksStage } from './handlers/index.js'
import { mcpSurface } from './mcp/index.js'
import { workflowSurface } from './workflow/index.js'

export { interfaceRoutes, publicInterfaceRoutes } from './interface-routes.js'

export interface SurfaceDeps {
  readonly config: Config
  readonly mode: AuthModeSummary
  readonly pipeline: AuthPipeline
  /** The AgentOS line's routes under this config. */
  readonly catalogue: RouteCatalogue
  /** What scopes grant (one table of parsed scopes per config). */
  readonly grants: Grants
  /** The one exchange (credential, decision, plan) the workflow endpoint admits through. */
  readonly exchange: Exchange
  readonly upstream: UpstreamClient
  readonly upstreamSockets: UpstreamWebSockets
  readonly headerOptions: UpstreamHeaderOptions
  /** Undefined when service accounts are off. */
  /** The owners of upstream rows (OWN-1); undefined when service accounts are off. */
  readonly owners: ResourceOwners | undefined
  /** Ends WebSockets with their credential. */
  readonly watch: ConnectionWatch
  /** Completes the handshakes of the workflow endpoint (its own frame-size bound). */
  readonly acceptWorkflow: AcceptPort
  readonly logger: Logger
  /** What each MCP exchange speaks; kept across config reloads. */
  readonly mcpVersions: McpProtocolVersions
}

export interface Surfaces {
  /** The MCP OAuth challenge on refusals of MCP routes, when configured. */
  readonly shapeRefusal: ShapeRefusal | undefined
  /**
   * After identity enforcement: the matched route's surface (MCP, A2A, AG-UI), AgentOS 3.0's
   * handler checks, then discovery documents.
   */
  readonly stages: ForwardStages
  /** Upgrades terminated by the gateway, by canonical path. */
  readonly localEndpoints: ReadonlyMap<string, LocalEndpoint>
}

/** The protocol surfaces beyond REST (MCP-6, A2A-5, AGUI-1, WS-1), wired from the config. */
export function createSurfaces(deps: SurfaceDeps): Surfaces {
  const { config, mode } = deps
  const interfaces = config.interfaces
  const open = mode.open
  const scoping = { grants: deps.grants, userIsolation: config.auth.user_isolation }
  const lookup = upstreamLookup(deps.upstream, deps.headerOptions.upstreamHost)
  const mcp = mcpSurface({
    settings: interfaces.mcp,
    open,
    ...scoping,
    lookup,
    defaultScopes: deps.catalogue.defaultScopes,
    versions: deps.mcpVersions,
  })
  const a2a = a2aSurface({ settings: interfaces.a2a, ...scoping, lookup })
  const agui = aguiSurface({ settings: interfaces.agui })
  const workflow = workflowSurface({
    config,
    open,
    jwtConfigured: mode.jwtConfigured,
    pipeline: deps.pipeline,
    grants: deps.grants,
    exchange: deps.exchange,
    upstream: deps.upstreamSockets,
    accept: deps.acceptWorkflow,
    watch: deps.watch,
    logger: deps.logger,
  })
  return {
    shapeRefusal: mcp.challenge,
    stages: {
      bySurface: new Map(
        (
          [
            ['mcp', mcp.stage],
            ['a2a', a2a],
            ['agui', agui],
          ] as const
        ).filter((entry): entry is readonly [SurfaceName, ForwardStage] => entry[1] !== undefined),
      ),
      byRoute: [
        handlerChecksStage({
          ...scoping,
          scheduleOwnerHeader: deps.catalogue.catalogue.scheduleOwnerHeader,
          owners: deps.owners,
          lookup,
          logger: deps.logger,
          now: () => Math.floor(Date.now() / 1000),
        }),
      ],
      byShape: [discoverySurface(deps.headerOptions)],
    },
    localEndpoints: new Map(workflow === undefined ? [] : [workflow]),
  }
}
