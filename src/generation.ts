import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Duplex } from 'node:stream'
import type { AccessLog } from './access-log.js'
import { DEFAULT_EXCLUDED_ROUTES, ExcludedRoutes } from './auth/excluded-routes.js'
import type { JwtVerifier } from './auth/jwt/jwt-verifier.js'
import { nextJwtVerifier } from './auth/jwt/next-verifier.js'
import { AuthPipeline } from './auth/pipeline.js'
import { SchedulerTokenVerifier } from './auth/scheduler-token-verifier.js'
import { SecurityKeyVerifier } from './auth/security-key-verifier.js'
import { summarizeAuthMode, type AuthModeSummary } from './config/auth-mode.js'
import type { Config } from './config/schema.js'
import { createApp } from './http/app.js'
import type { RefusalSettings } from './http/refusal-response.js'
import { CredentialWatch } from './http/connection-watch.js'
import type { InFlight } from './http/in-flight.js'
import { authenticate } from './http/middleware/authenticate.js'
import { forward } from './http/middleware/forward.js'
import { planRequest } from './http/middleware/plan-request.js'
import { serviceAccountsRoute } from './http/middleware/service-accounts-route.js'
import { Exchange } from './http/exchange.js'
import { UpgradeHandler } from './http/upgrade.js'
import { WebSocketAcceptor } from './http/websocket-acceptor.js'
import type { WebSocketAdmission } from './http/websocket-limits.js'
import type { AssertionSigner } from './identity/assertion-signer.js'
import { IdentityEnforcer } from './identity/identity-enforcer.js'
import { TrustedProxies } from './inbound/client-address.js'
import type { InboundSettings } from './inbound/read-inbound.js'
import type { Logger } from './logger.js'
import type { Metrics } from './metrics.js'
import { Authorizer } from './policy/authorizer.js'
import { agentosCatalogue, type AgentOsLine } from './policy/catalogue/index.js'
import { RouteCatalogue } from './policy/catalogue/route-catalogue.js'
import { Grants } from './policy/grants.js'
import { ServiceAccountsApi } from './service-accounts/api/service-accounts-api.js'
import type { ServiceAccounts } from './service-accounts/start-service-accounts.js'
import type { McpProtocolVersions } from './surfaces/mcp/protocol-versions.js'
import { createSurfaces, interfaceRoutes, publicInterfaceRoutes } from './surfaces/index.js'
import type { UpstreamClient } from './upstream/upstream-client.js'
import type { UpstreamHeaderOptions } from './upstream/upstream-headers.js'
import { UpstreamWebSockets } from './upstream/upstream-websocket.js'

/** What lives as long as the process, whatever config is loaded. */
export interface SharedParts {
  readonly logger: Logger
  readonly metrics: Metrics
  readonly upstream: UpstreamClient
  readonly serviceAccounts: ServiceAccounts | undefined
  readonly inFlight: InFlight
  readonly accessLog: AccessLog
  readonly webSockets: WebSocketAdmission
  /** What each MCP exchange speaks (learned from traffic, so it outlives a reload). */
  readonly mcpVersions: McpProtocolVersions
}

/** The AgentOS line a generation decides with, and what follows from how it was chosen. */
export interface AgentOsChoice {
  readonly line: AgentOsLine
  /**
   * `auth.deny_unmapped_routes` in effect: the setting when it is given, else true exactly while a
   * pinned line is contradicted by what the upstream reports.
   */
  readonly denyUnmappedRoutes: boolean
}

/**
 * Everything built from one config and one AgentOS line: the request handler, the upgrade handler
 * and the decision core behind them. A reload (or a change of line) builds a new generation and
 * swaps it in; requests that started on the old one finish on it.
 */
export interface Generation {
  readonly config: Config
  readonly agentos: AgentOsChoice
  readonly mode: AuthModeSummary
  /**
   * Handed to the next generation when its `auth` section is unchanged (keys, cache, cooldown);
   * otherwise its remote key set is, when the remote settings are unchanged.
   */
  readonly jwt: JwtVerifier | undefined
  readonly signer: AssertionSigner | undefined
  readonly handleRequest: (req: IncomingMessage, res: ServerResponse) => void
  readonly handleUpgrade: (req: IncomingMessage, socket: Duplex, head: Buffer) => void
  /** Closes its WebSockets with 1001 (shutdown). */
  closeConnections(): void
  /** Releases its watchers and subscriptions once its WebSockets have closed; `keep` lives on. */
  retire(keep?: JwtVerifier): Promise<void>
}

/**
 * The composition root of one config: builds every part in dependency order, each handed the
 * narrow parts it uses. On failure, whatever it had started is released before the error
 * propagates.
 */
export async function createGeneration(
  config: Config,
  shared: SharedParts,
  agentos: AgentOsChoice,
  previous?: Generation,
): Promise<Generation> {
  const { logger, metrics, upstream, serviceAccounts } = shared
  const mode = summarizeAuthMode(config.auth)
  const cleanups: (() => void)[] = []
  try {
    const { verifier: jwt, reused } = await nextJwtVerifier(
      config.auth,
      mode,
      { logger, metrics },
      previous && { auth: previous.config.auth, verifier: previous.jwt },
    )
    if (jwt !== undefined && !reused) cleanups.push(() => jwt.close())
    const grants = new Grants(config.auth.admin_scope)
    const catalogue = new RouteCatalogue({
      catalogue: agentosCatalogue(agentos.line),
      scopeMappings: config.auth.scope_mappings,
      interfaces: interfaceRoutes(config.interfaces),
    })
    const pipeline = authPipeline(config, agentos, mode, shared, jwt, grants, catalogue)
    const enforcer = await IdentityEnforcer.create(config, mode, {
      scheduleOwnerHeader: catalogue.catalogue.scheduleOwnerHeader,
    })
    const inbound: InboundSettings = {
      trustedProxies: new TrustedProxies(config.server.trusted_proxies),
      maxHeadersCount: config.server.max_headers_count,
    }
    const headerOptions: UpstreamHeaderOptions = {
      identityPrefixes: ['x-auth-'],
      identityNames: enforcer.identityHeaderNames,
      preserveHost: config.upstream.preserve_host,
      upstreamHost: new URL(config.upstream.url).host,
    }
    const upstreamSockets = new UpstreamWebSockets({
      upstreamUrl: config.upstream.url,
      connectTimeoutMs: config.upstream.connect_timeout_ms,
      headerOptions,
      onFailure: (kind) => metrics.upstreamErrors.inc({ kind }),
    })
    const watch = new CredentialWatch({ revocations: serviceAccounts?.revocations })
    cleanups.push(() => watch.close())
    const acceptor = new WebSocketAcceptor({
      metrics,
      idleTimeoutMs: config.server.websocket_idle_timeout_ms,
    })
    const exchange = new Exchange({ pipeline, enforcer })
    const surfaces = createSurfaces({
      config,
      mode,
      pipeline,
      catalogue,
      grants,
      exchange,
      upstream,
      upstreamSockets,
      headerOptions,
      owners: serviceAccounts?.owners,
      watch,
      acceptWorkflow: acceptor.port(config.interfaces.workflow_websocket.max_message_bytes),
      logger,
      mcpVersions: shared.mcpVersions,
    })
    const api =
      serviceAccounts === undefined
        ? undefined
        : new ServiceAccountsApi({
            store: serviceAccounts.store,
            grants,
            line: agentos.line,
            userIsolation: config.auth.user_isolation,
            logger,
            now: () => serviceAccounts.clock.now(),
            onRevoked: (tokenHash) => serviceAccounts.revocations.revoked(tokenHash),
          })
    const refusals: RefusalSettings = {
      allowedOrigins: config.cors.allowed_origins,
      shape: surfaces.shapeRefusal,
    }
    const app = createApp({
      logger,
      metrics,
      inFlight: shared.inFlight,
      inbound,
      bodyLimits: {
        maxBytes: config.server.max_body_bytes,
        maxDepth: config.server.max_json_depth,
      },
      match: (method, path) => catalogue.match(method, path),
      refusals,
      accessLog: shared.accessLog,
      accessLogOn: config.logging.access_log,
      stages: [
        authenticate({ exchange, refusals }),
        serviceAccountsRoute({
          api,
          maxJsonDepth: config.server.max_json_depth,
          allowedOrigins: config.cors.allowed_origins,
        }),
        planRequest({ exchange, stages: surfaces.stages }),
      ],
      forward: forward({ upstream, headerOptions, metrics }),
    })
    const upgrades = new UpgradeHandler({
      inbound,
      admission: shared.webSockets,
      localEndpoints: surfaces.localEndpoints,
      exchange,
      upstream: upstreamSockets,
      accept: acceptor.port(config.server.max_websocket_message_bytes),
      watch,
      metrics,
      inFlight: shared.inFlight,
      accessLog: shared.accessLog,
      accessLogOn: config.logging.access_log,
    })
    const callback = app.callback()
    return {
      config,
      agentos,
      mode,
      jwt,
      signer: enforcer.signer,
      handleRequest: (req, res) => void callback(req, res),
      handleUpgrade: upgrades.handle,
      closeConnections: () => acceptor.closeAll(),
      async retire(keep) {
        if (jwt !== keep) jwt?.close()
        await upgrades.settled()
        await acceptor.idle()
        watch.close()
      },
    }
  } catch (error) {
    for (const cleanup of cleanups.reverse()) cleanup()
    throw error
  }
}

/** The decision core of one config: excluded routes, the route table, the verifiers. */
function authPipeline(
  config: Config,
  agentos: AgentOsChoice,
  mode: AuthModeSummary,
  shared: SharedParts,
  jwt: JwtVerifier | undefined,
  grants: Grants,
  catalogue: RouteCatalogue,
): AuthPipeline {
  const auth = config.auth
  return new AuthPipeline({
    mode,
    credentials: auth,
    excluded: new ExcludedRoutes([
      ...(auth.excluded_route_paths ?? DEFAULT_EXCLUDED_ROUTES),
      ...publicInterfaceRoutes(config.interfaces),
    ]),
    catalogue,
    authorizer: new Authorizer({
      grants,
      denyUnmapped: agentos.denyUnmappedRoutes,
      userIsolation: auth.user_isolation,
    }),
    serviceAccounts: shared.serviceAccounts?.verifier,
    scheduler:
      auth.internal_service_token !== null
        ? new SchedulerTokenVerifier(auth, catalogue.catalogue.schedulerScopes)
        : undefined,
    jwt,
    securityKey:
      !mode.jwtConfigured && auth.security_key !== null ? new SecurityKeyVerifier(auth) : undefined,
    metrics: shared.metrics,
    logger: shared.logger,
  })
}
