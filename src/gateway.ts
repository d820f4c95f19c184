import type { Server } from 'node:http'
import { describeAuthMode } from './config/auth-mode.js'
import type { Config } from './config/schema.js'
import { configWarnings } from './config/warnings.js'
import { restartOnlyChanges, withRestartOnlyKeysOf } from './config/restart-only.js'
import { AccessLog } from './access-log.js'
import { buildInfo } from './build-info.js'
import { createGeneration, type Generation, type SharedParts } from './generation.js'
import { createAdminServer } from './http/admin-server.js'
import { InFlight } from './http/in-flight.js'
import { observeRefusal } from './http/middleware/observe.js'
import { readinessChecks } from './http/readiness-checks.js'
import { closeServer, createProxyServer, listenerUrl, listenOrExplain } from './http/servers.js'
import { UpstreamClient } from './upstream/upstream-client.js'
import { WebSocketAdmission } from './http/websocket-limits.js'
import { createLogger, type Logger } from './logger.js'
import { Metrics } from './metrics.js'
import type { AgentOsLine } from './policy/catalogue/index.js'
import { settingName } from './startup-error.js'
import { checkStartup, configCannotBeApplied } from './startup-check.js'
import {
  startServiceAccounts,
  type ServiceAccounts,
} from './service-accounts/start-service-accounts.js'

export interface GatewayOptions {
  readonly logger?: Logger
  /** Process metrics (event loop, memory) are off in tests that start many gateways. */
  readonly collectProcessMetrics?: boolean
  /** The AgentOS line whose behaviour the gateway reproduces; 2.9 unless given. */
  readonly agentOsLine?: AgentOsLine
}

export interface RunningGateway {
  readonly url: string
  readonly port: number
  readonly adminUrl: string
  readonly adminPort: number
}

export interface ReloadResult {
  readonly outcome: 'applied' | 'failed'
  /** Keys that changed but only take effect after a restart (listeners, upstream, store). */
  readonly restartRequired: readonly string[]
  readonly error?: string
}

export interface Gateway {
  /** The config requests are handled with now (after the last successful reload). */
  readonly config: Config
  readonly logger: Logger
  readonly metrics: Metrics
  /** The service-account store and verifier; undefined when service accounts are off. */
  readonly serviceAccounts: ServiceAccounts | undefined
  start(): Promise<RunningGateway>
  /**
   * Rebuilds everything that depends on the config (keys, JWKS file, scopes, identity, surfaces)
   * from `next`, or from the current config to re-read the JWKS file; swaps it in atomically for
   * new requests. A failure keeps the old generation serving. The SIGHUP action.
   */
  reload(next?: Config): Promise<ReloadResult>
  /** Graceful: stop accepting, let in-flight requests finish (bounded), close WebSockets, release. */
  stop(): Promise<void>
}

/**
 * The composition root: the only place that creates the gateway's parts and wires them together.
 * Throws (before anything listens, and releasing what it opened) when a part cannot start: bad
 * keys, an unreachable database.
 */
export async function createGateway(
  config: Config,
  options: GatewayOptions = {},
): Promise<Gateway> {
  const logger = options.logger ?? createLogger({ level: config.logging.level })
  const agentOsLine = options.agentOsLine ?? '2.9'
  // Before the store is opened or a port bound; its warnings are logged once, by the build below.
  await checkStartup(config, logger.child({}, { level: 'silent' }))
  const metrics = new Metrics({ collectProcessMetrics: options.collectProcessMetrics ?? true })
  const build = buildInfo()
  metrics.reportBuild(build)
  const upstream = new UpstreamClient(config.upstream, (kind) =>
    metrics.upstreamErrors.inc({ kind }),
  )
  let serviceAccounts: ServiceAccounts | undefined
  try {
    serviceAccounts = config.service_accounts.enabled
      ? await startServiceAccounts(config, logger, metrics.registry)
      : undefined
  } catch (error) {
    await upstream.close()
    throw error
  }
  const shared: SharedParts = {
    logger,
    metrics,
    upstream,
    serviceAccounts,
    inFlight: new InFlight(),
    accessLog: new AccessLog(logger),
    webSockets: new WebSocketAdmission({
      maxConnections: config.server.max_websocket_connections,
      maxPerClient: config.server.max_websocket_connections_per_client,
    }),
  }
  metrics.reportInFlight(() => shared.inFlight.count)
  let current: Generation
  try {
    current = await createGeneration(config, shared, undefined, agentOsLine)
  } catch (error) {
    await Promise.all([upstream.close(), serviceAccounts?.stop()])
    // Keys, key files and identity settings are built here: what fails is the configuration.
    throw configCannotBeApplied(error)
  }
  const live = new Set<Generation>([current])
  warnIfOpen(current, logger)

  const proxyServer = createProxyServer(
    config.server,
    (req, res) => current.handleRequest(req, res),
    observeRefusal({
      metrics,
      accessLog: () => (current.config.logging.access_log ? shared.accessLog : undefined),
    }),
  )
  proxyServer.on('upgrade', (req, socket, head: Buffer) => current.handleUpgrade(req, socket, head))

  let accepting = true
  const readiness = readinessChecks({
    upstream,
    upstreamHost: new URL(config.upstream.url).host,
    store: serviceAccounts?.store,
    jwks: () => current.jwt?.remoteKeySetHealth(),
    open: () => current.mode.open,
  })
  const documents = new Map<string, () => unknown>([
    ['/.well-known/jwks.json', () => current.signer?.jwks() ?? { keys: [] }],
  ])
  const adminServer: Server = createAdminServer({
    metrics,
    readiness,
    accepting: () => accepting,
    documents,
  })

  return {
    get config() {
      return current.config
    },
    logger,
    metrics,
    serviceAccounts,
    async start() {
      const port = await listenOrExplain(proxyServer, config.server.port, config.server.host, {
        port: settingName('server.port', 'PORTCULLIS_PORT'),
        host: 'server.host',
      })
      let adminPort: number
      try {
        adminPort = await listenOrExplain(
          adminServer,
          config.server.admin_port,
          config.server.admin_host,
          {
            port: settingName('server.admin_port', 'PORTCULLIS_ADMIN_PORT'),
            host: settingName('server.admin_host', 'PORTCULLIS_ADMIN_HOST'),
          },
        )
      } catch (error) {
        await closeServer(proxyServer)
        throw error
      }
      logger.info(
        {
          port,
          admin_port: adminPort,
          upstream: config.upstream.url,
          auth_mode: describeAuthMode(current.mode),
          version: build.version,
          commit: build.commit,
        },
        'portcullis listening',
      )
      return {
        url: listenerUrl(config.server.host, port),
        port,
        adminUrl: listenerUrl(config.server.admin_host, adminPort),
        adminPort,
      }
    },
    async reload(next = current.config) {
      const restartRequired = restartOnlyChanges(current.config, next)
      let generation: Generation
      try {
        generation = await createGeneration(
          withRestartOnlyKeysOf(current.config, next),
          shared,
          current,
          agentOsLine,
        )
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error)
        metrics.configReloads.inc({ result: 'failed' })
        logger.error({ err: error }, 'reload failed; the previous configuration stays in effect')
        return { outcome: 'failed', restartRequired, error: message }
      }
      const previous = current
      current = generation
      live.add(generation)
      logger.level = next.logging.level
      metrics.configReloads.inc({ result: 'applied' })
      if (restartRequired.length > 0)
        logger.warn({ keys: restartRequired }, 'these changes take effect only after a restart')
      logger.info({ auth_mode: describeAuthMode(generation.mode) }, 'configuration reloaded')
      warnIfOpen(generation, logger)
      void previous.retire(generation.jwt).then(() => live.delete(previous))
      return { outcome: 'applied', restartRequired }
    },
    async stop() {
      accepting = false
      const closing = closeServer(proxyServer)
      proxyServer.closeIdleConnections()
      const inFlight = shared.inFlight
      const drained = await inFlight.drained(config.server.shutdown_grace_ms)
      if (!drained) {
        logger.warn(
          { in_flight: inFlight.count },
          'shutdown grace period over; closing connections',
        )
        inFlight.startCutting()
      }
      for (const generation of live) generation.closeConnections()
      proxyServer.closeAllConnections()
      await closing
      await Promise.all([...live].map((generation) => generation.retire()))
      await Promise.all([upstream.close(), closeServer(adminServer), serviceAccounts?.stop()])
      logger.info('portcullis stopped')
    },
  }
}

/** The configuration's security warnings (the same `config check` prints), at every start and reload. */
function warnIfOpen(generation: Generation, logger: Logger): void {
  for (const warning of configWarnings(generation.config)) logger.warn(warning)
}
