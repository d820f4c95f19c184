import type { Server } from 'node:http'
import { DEFAULT_EXCLUDED_ROUTES, ExcludedRoutes } from './auth/excluded-routes.js'
import { JwtVerifier } from './auth/jwt/index.js'
import { AuthPipeline } from './auth/pipeline.js'
import { SchedulerTokenVerifier } from './auth/scheduler-token-verifier.js'
import { SecurityKeyVerifier } from './auth/security-key-verifier.js'
import { summarizeAuthMode } from './config/auth-mode.js'
import type { Config } from './config/schema.js'
import { createAdminServer } from './http/admin-server.js'
import { createApp } from './http/app.js'
import { TrustedProxies } from './http/client-address.js'
import { InFlight } from './http/in-flight.js'
import { authenticate } from './http/middleware/authenticate.js'
import { enforceIdentity } from './http/middleware/enforce-identity.js'
import { forward } from './http/middleware/forward.js'
import { serviceAccountsRoute } from './http/middleware/service-accounts-route.js'
import type { ReadinessCheck } from './http/readiness.js'
import { closeServer, createProxyServer, listen } from './http/servers.js'
import { UpstreamClient } from './http/upstream-client.js'
import type { UpstreamHeaderOptions } from './http/upstream-headers.js'
import { createUpgradeGate } from './http/upgrade-gate.js'
import { UpgradeHandler } from './http/upgrade.js'
import { IdentityEnforcer } from './identity/identity-enforcer.js'
import { createLogger, type Logger } from './logger.js'
import { Metrics } from './metrics.js'
import { Authorizer } from './policy/authorizer.js'
import { RouteTable } from './policy/route-table.js'
import { ServiceAccountsApi } from './service-accounts/api/service-accounts-api.js'
import {
  startServiceAccounts,
  type ServiceAccounts,
} from './service-accounts/start-service-accounts.js'
import { createSurfaces, interfaceMappings, publicInterfaceRoutes } from './surfaces/index.js'

export interface GatewayOptions {
  readonly logger?: Logger
  /** Process metrics (event loop, memory) are off in tests that start many gateways. */
  readonly collectProcessMetrics?: boolean
}

export interface RunningGateway {
  readonly url: string
  readonly port: number
  readonly adminUrl: string
  readonly adminPort: number
}

export interface Gateway {
  readonly config: Config
  readonly logger: Logger
  readonly metrics: Metrics
  /** The service-account store and verifier; undefined when service accounts are off. */
  readonly serviceAccounts: ServiceAccounts | undefined
  start(): Promise<RunningGateway>
  /** Re-reads what can change without a restart (the JWKS file); the SIGHUP action. */
  reload(): Promise<void>
  /** Graceful: stop accepting, let in-flight requests finish (bounded), close WebSockets, release. */
  stop(): Promise<void>
}

/**
 * The composition root: the only place that creates the gateway's parts and wires them together.
 * Throws (before anything listens) when a part cannot start: bad keys, an unreachable database.
 */
export async function createGateway(
  config: Config,
  options: GatewayOptions = {},
): Promise<Gateway> {
  const logger = options.logger ?? createLogger({ level: config.logging.level })
  const metrics = new Metrics({ collectProcessMetrics: options.collectProcessMetrics ?? true })
  const mode = summarizeAuthMode(config.auth)
  if (mode.mode === 'none') {
    logger.warn('no JWT source and no security key: running open, anonymous requests are forwarded')
  }

  const jwt = mode.jwtConfigured
    ? await JwtVerifier.create(config.auth, { logger, metrics })
    : undefined
  const securityKey =
    !mode.jwtConfigured && config.auth.security_key !== null
      ? new SecurityKeyVerifier(config.auth)
      : undefined
  const scheduler =
    config.auth.internal_service_token !== null
      ? new SchedulerTokenVerifier(config.auth)
      : undefined
  const serviceAccounts = config.service_accounts.enabled
    ? await startServiceAccounts(config, logger, metrics.registry)
    : undefined

  const authorizer = new Authorizer({
    table: RouteTable.fromConfig({
      scopeMappings: config.auth.scope_mappings,
      interfaceMappings: interfaceMappings(config.interfaces),
    }),
    adminScope: config.auth.admin_scope,
    denyUnmapped: config.auth.deny_unmapped_routes,
  })
  const pipeline = new AuthPipeline({
    mode,
    credentials: config.auth,
    excluded: new ExcludedRoutes([
      ...(config.auth.excluded_route_paths ?? DEFAULT_EXCLUDED_ROUTES),
      ...publicInterfaceRoutes(config.interfaces),
    ]),
    authorizer,
    serviceAccounts: serviceAccounts?.verifier,
    scheduler,
    jwt,
    securityKey,
    metrics,
  })
  const enforcer = await IdentityEnforcer.create(config, mode)

  const trustedProxies = new TrustedProxies(config.server.trusted_proxies)
  const inFlight = new InFlight()
  const upstream = new UpstreamClient(config.upstream, (kind) =>
    metrics.upstreamErrors.inc({ kind }),
  )
  const headerOptions: UpstreamHeaderOptions = {
    identityPrefixes: ['x-auth-'],
    identityNames: enforcer.identityHeaderNames,
    preserveHost: config.upstream.preserve_host,
    upstreamHost: new URL(config.upstream.url).host,
  }
  const surfaces = createSurfaces({
    config,
    mode,
    pipeline,
    enforcer,
    upstream,
    headerOptions,
    trustedProxies,
    serviceAccounts,
    logger,
  })
  await surfaces.start()
  const api =
    serviceAccounts === undefined
      ? undefined
      : new ServiceAccountsApi({
          store: serviceAccounts.store,
          adminScope: config.auth.admin_scope,
          logger,
          onRevoked: (tokenHash) => {
            serviceAccounts.verifier.evictByHash(tokenHash)
            surfaces.watch.revoked(tokenHash)
          },
        })
  const app = createApp({
    logger,
    metrics,
    inFlight,
    trustedProxies,
    allowedOrigins: config.cors.allowed_origins,
    accessLog: config.logging.access_log,
    maxHeadersCount: config.server.max_headers_count,
    stages: [
      ...surfaces.beforeAuthentication,
      authenticate({ pipeline }),
      serviceAccountsRoute({ api, maxBodyBytes: config.server.max_body_bytes }),
      enforceIdentity({ enforcer }),
      ...surfaces.afterIdentity,
    ],
    forward: forward({ upstream, headerOptions, metrics }),
  })
  const upgrades = new UpgradeHandler({
    config,
    logger,
    metrics,
    trustedProxies,
    headerOptions,
    gate: createUpgradeGate({
      pipeline,
      enforcer,
      credentials: config.auth,
      watch: surfaces.watch,
    }),
    localHandlers: surfaces.localHandlers,
  })
  surfaces.bindUpgrades(upgrades)
  const handleRequest = app.callback()
  const proxyServer = createProxyServer(config.server, (req, res) => void handleRequest(req, res))
  proxyServer.on('upgrade', upgrades.handle)

  let accepting = true
  const readiness: ReadinessCheck[] = [
    {
      name: 'upstream',
      check: async () => {
        await upstream.fetch(
          {
            method: 'GET',
            path: '/health',
            headers: ['host', headerOptions.upstreamHost],
            body: null,
          },
          65_536,
        )
      },
    },
  ]
  if (serviceAccounts !== undefined)
    readiness.push({ name: 'store', check: () => serviceAccounts.store.ping() })
  const documents = new Map<string, () => unknown>()
  const signer = enforcer.signer
  if (signer !== undefined) documents.set('/.well-known/jwks.json', () => signer.jwks())
  const adminServer: Server = createAdminServer({
    metrics,
    readiness,
    accepting: () => accepting,
    documents,
  })

  return {
    config,
    logger,
    metrics,
    serviceAccounts,
    async start() {
      const port = await listen(proxyServer, config.server.port, config.server.host)
      const adminPort = await listen(
        adminServer,
        config.server.admin_port,
        config.server.admin_host,
      )
      const host =
        config.server.host === '0.0.0.0' || config.server.host === '::'
          ? '127.0.0.1'
          : config.server.host
      logger.info(
        { port, admin_port: adminPort, upstream: config.upstream.url, auth_mode: mode.mode },
        'portcullis listening',
      )
      return {
        url: `http://${host}:${port}`,
        port,
        adminUrl: `http://${host}:${adminPort}`,
        adminPort,
      }
    },
    async reload() {
      const result = await jwt?.reload()
      logger.info({ jwks: result ?? 'not configured' }, 'reload')
    },
    async stop() {
      accepting = false
      const closing = closeServer(proxyServer)
      proxyServer.closeIdleConnections()
      const drained = await inFlight.drained(config.server.shutdown_grace_ms)
      if (!drained)
        logger.warn(
          { in_flight: inFlight.count },
          'shutdown grace period over; closing connections',
        )
      surfaces.stop()
      upgrades.closeAll()
      proxyServer.closeAllConnections()
      await closing
      jwt?.close()
      await Promise.all([upstream.close(), closeServer(adminServer), serviceAccounts?.stop()])
      logger.info('portcullis stopped')
    },
  }
}
