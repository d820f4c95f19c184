import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Duplex } from 'node:stream'
import type { AccessLog } from './access-log.js'
import { DEFAULT_EXCLUDED_ROUTES, ExcludedRoutes } from './auth/excluded-routes.js'
import { JwtVerifier } from './auth/jwt/index.js'
import { AuthPipeline } from './auth/pipeline.js'
import { SchedulerTokenVerifier } from './auth/scheduler-token-verifier.js'
import { SecurityKeyVerifier } from './auth/security-key-verifier.js'
import { summarizeAuthMode, type AuthModeSummary } from './config/auth-mode.js'
import type { Config } from './config/schema.js'
import { createApp } from './http/app.js'
import { TrustedProxies } from './inbound/client-address.js'
import type { InFlight } from './http/in-flight.js'
import { authenticate } from './http/middleware/authenticate.js'
import { enforceIdentity } from './http/middleware/enforce-identity.js'
import { forward } from './http/middleware/forward.js'
import { serviceAccountsRoute } from './http/middleware/service-accounts-route.js'
import type { UpstreamClient } from './http/upstream-client.js'
import type { UpstreamHeaderOptions } from './http/upstream-headers.js'
import { createUpgradeGate } from './http/upgrade-gate.js'
import { UpgradeHandler } from './http/upgrade.js'
import type { WebSocketAdmission } from './http/websocket-limits.js'
import type { AssertionSigner } from './identity/assertion-signer.js'
import { IdentityEnforcer } from './identity/identity-enforcer.js'
import type { Logger } from './logger.js'
import type { Metrics } from './metrics.js'
import { Authorizer } from './policy/authorizer.js'
import { RouteTable } from './policy/route-table.js'
import { ServiceAccountsApi } from './service-accounts/api/service-accounts-api.js'
import type { ServiceAccounts } from './service-accounts/start-service-accounts.js'
import { createSurfaces, interfaceMappings, publicInterfaceRoutes } from './surfaces/index.js'

/** What lives as long as the process, whatever config is loaded. */
export interface SharedParts {
  readonly logger: Logger
  readonly metrics: Metrics
  readonly upstream: UpstreamClient
  readonly serviceAccounts: ServiceAccounts | undefined
  readonly inFlight: InFlight
  readonly accessLog: AccessLog
  readonly webSockets: WebSocketAdmission
}

/**
 * Everything built from one config: the request handler, the upgrade handler and the decision
 * core behind them. A reload builds a new generation and swaps it in; requests that started on the
 * old one finish on it.
 */
export interface Generation {
  readonly config: Config
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
 * Builds a generation; on failure, whatever it had started is released before the error
 * propagates. With the same `auth` section as `previous`, its JWT verifier is kept, its JWKS
 * file re-read and its remote key set refetched (the SIGHUP reload), so verified tokens and the
 * unknown-kid cooldown carry over; with other `auth` settings, a remote key set whose own
 * settings are unchanged is shared, never fetched anew.
 */
export async function createGeneration(
  config: Config,
  shared: SharedParts,
  previous?: Generation,
): Promise<Generation> {
  const { logger, metrics, upstream, serviceAccounts } = shared
  const mode = summarizeAuthMode(config.auth)
  const cleanups: (() => void)[] = []
  try {
    const reused =
      previous?.jwt !== undefined &&
      JSON.stringify(previous.config.auth) === JSON.stringify(config.auth)
    const jwt = reused
      ? previous.jwt
      : mode.jwtConfigured
        ? await JwtVerifier.create(config.auth, { logger, metrics }, previous?.jwt)
        : undefined
    if (reused) await jwt?.reload()
    else if (jwt !== undefined) cleanups.push(() => jwt.close())
    const pipeline = new AuthPipeline({
      mode,
      credentials: config.auth,
      excluded: new ExcludedRoutes([
        ...(config.auth.excluded_route_paths ?? DEFAULT_EXCLUDED_ROUTES),
        ...publicInterfaceRoutes(config.interfaces),
      ]),
      authorizer: new Authorizer({
        table: RouteTable.fromConfig({
          scopeMappings: config.auth.scope_mappings,
          interfaceMappings: interfaceMappings(config.interfaces),
        }),
        adminScope: config.auth.admin_scope,
        denyUnmapped: config.auth.deny_unmapped_routes,
      }),
      serviceAccounts: serviceAccounts?.verifier,
      scheduler:
        config.auth.internal_service_token !== null
          ? new SchedulerTokenVerifier(config.auth)
          : undefined,
      jwt,
      securityKey:
        !mode.jwtConfigured && config.auth.security_key !== null
          ? new SecurityKeyVerifier(config.auth)
          : undefined,
      metrics,
      logger: shared.logger,
    })
    const enforcer = await IdentityEnforcer.create(config, mode)
    const trustedProxies = new TrustedProxies(config.server.trusted_proxies)
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
    cleanups.push(() => surfaces.stop())

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
      inFlight: shared.inFlight,
      trustedProxies,
      allowedOrigins: config.cors.allowed_origins,
      accessLog: config.logging.access_log ? shared.accessLog : undefined,
      maxHeadersCount: config.server.max_headers_count,
      stages: [
        ...surfaces.beforeAuthentication,
        authenticate({ pipeline }),
        serviceAccountsRoute({
          api,
          maxBodyBytes: config.server.max_body_bytes,
          maxJsonDepth: config.server.max_json_depth,
          allowedOrigins: config.cors.allowed_origins,
        }),
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
      admission: shared.webSockets,
    })
    surfaces.bindUpgrades(upgrades)
    const callback = app.callback()
    return {
      config,
      mode,
      jwt,
      signer: enforcer.signer,
      handleRequest: (req, res) => void callback(req, res),
      handleUpgrade: upgrades.handle,
      closeConnections: () => upgrades.closeAll(),
      async retire(keep) {
        if (jwt !== keep) jwt?.close()
        await upgrades.idle()
        surfaces.stop()
      },
    }
  } catch (error) {
    for (const cleanup of cleanups.reverse()) cleanup()
    throw error
  }
}
