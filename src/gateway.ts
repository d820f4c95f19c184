import type { Server } from 'node:http'
import type { Clock } from './clock.js'
import { describeAuthMode } from './config/auth-mode.js'
import type { Config } from './config/schema.js'
import { AccessLog } from './access-log.js'
import { buildInfo } from './build-info.js'
import type { SharedParts } from './generation.js'
import { Generations, type ReloadResult } from './generations.js'
import { createAdminServer } from './http/admin-server.js'
import { createAgentOsGate, unavailableResponder } from './http/agentos-gate.js'
import { InFlight } from './http/in-flight.js'
import { observeRefusal } from './http/middleware/observe.js'
import { readinessChecks } from './http/readiness-checks.js'
import { closeServer, createProxyServer, listenerUrl, listenOrExplain } from './http/servers.js'
import { AgentOsLineWatch, type LineInForce } from './upstream/agentos-line-watch.js'
import { probeAgentOsLine } from './upstream/agentos-probe.js'
import { UpstreamClient } from './upstream/upstream-client.js'
import { WebSocketAdmission } from './http/websocket-limits.js'
import { McpProtocolVersions } from './surfaces/mcp/protocol-versions.js'
import { createLogger, type Logger } from './logger.js'
import { Metrics } from './metrics.js'
import type { Timers } from './timers.js'
import { settingName } from './startup-error.js'
import { checkStartup, configCannotBeApplied } from './startup-check.js'
import {
  startServiceAccounts,
  type ServiceAccounts,
} from './service-accounts/start-service-accounts.js'

export type { ReloadResult } from './generations.js'

export interface GatewayOptions {
  readonly logger?: Logger
  /** Process metrics (event loop, memory) are off in tests that start many gateways. */
  readonly collectProcessMetrics?: boolean
  /** The service-account subsystem's time (expiry, stored times, audit retention). */
  readonly clock?: Clock
  readonly timers?: Timers
}

export interface RunningGateway {
  readonly url: string
  readonly port: number
  readonly adminUrl: string
  readonly adminPort: number
}

export interface Gateway {
  /** The config requests are handled with now (after the last successful reload). */
  readonly config: Config
  /** The AgentOS line requests are decided with; undefined while none is (auto, not read yet). */
  readonly agentos: LineInForce | undefined
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
  /** Access lines not yet written go out synchronously: for the process's `exit` event. */
  flushLogsForExit(): void
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
  // Before the store is opened or a port bound; its warnings are logged once, by the build below.
  await checkStartup(config, logger.child({}, { level: 'silent' }))
  const metrics = new Metrics({ collectProcessMetrics: options.collectProcessMetrics ?? true })
  metrics.reportBuild(buildInfo())
  const upstreamHost = new URL(config.upstream.url).host
  // The watch applies each line it reads to the generations, which exist once it follows.
  let generations: Generations | undefined
  const upstream = new UpstreamClient(config.upstream, (kind) => {
    metrics.upstreamErrors.inc({ kind })
    // A connection that could not be made or was cut: the upstream may be restarting.
    if (kind === 'refused' || kind === 'reset') agentos.suspect()
  })
  const agentos = new AgentOsLineWatch({
    setting: config.upstream.agentos_version,
    upstreamUrl: config.upstream.url,
    probe: () => probeAgentOsLine(upstream, upstreamHost),
    apply: (inForce) => generations?.applyLine(inForce) ?? Promise.resolve(),
    logger,
  })
  const stopWatchingConnections = upstream.onAllConnectionsClosed(() => agentos.connectionsClosed())
  const releaseUpstream = async (): Promise<void> => {
    agentos.close()
    stopWatchingConnections()
    await upstream.close()
  }
  let serviceAccounts: ServiceAccounts | undefined
  try {
    // auto: refused here (exit 2) when the upstream runs a version no catalogue covers.
    await agentos.start()
    serviceAccounts = config.service_accounts.enabled
      ? await startServiceAccounts(config, logger, metrics.registry, {
          clock: options.clock,
          timers: options.timers,
        })
      : undefined
  } catch (error) {
    await releaseUpstream()
    throw error
  }
  const shared = sharedParts(config, { logger, metrics, upstream, serviceAccounts })
  metrics.reportInFlight(() => shared.inFlight.count)
  metrics.reportAgentOs(() => agentos.labels())
  try {
    generations = await Generations.start(config, shared, agentos.inForce)
  } catch (error) {
    await Promise.all([releaseUpstream(), serviceAccounts?.stop()])
    // Keys, key files and identity settings are built here: what fails is the configuration.
    throw configCannotBeApplied(error)
  }
  agentos.follow()
  return new PortcullisGateway({
    config,
    shared,
    agentos,
    generations,
    upstreamHost,
    releaseUpstream,
  })
}

/** What lives as long as the process: the parts every generation shares. */
function sharedParts(
  config: Config,
  parts: Pick<SharedParts, 'logger' | 'metrics' | 'upstream' | 'serviceAccounts'>,
): SharedParts {
  return {
    ...parts,
    inFlight: new InFlight(),
    accessLog: new AccessLog(parts.logger),
    webSockets: new WebSocketAdmission({
      maxConnections: config.server.max_websocket_connections,
      maxPerClient: config.server.max_websocket_connections_per_client,
    }),
    mcpVersions: new McpProtocolVersions(parts.logger),
  }
}

interface GatewayParts {
  readonly config: Config
  readonly shared: SharedParts
  readonly agentos: AgentOsLineWatch
  readonly generations: Generations
  readonly upstreamHost: string
  readonly releaseUpstream: () => Promise<void>
}

/** The started parts, behind the proxy and admin listeners: start, reload and graceful stop. */
class PortcullisGateway implements Gateway {
  readonly logger: Logger
  readonly metrics: Metrics
  readonly serviceAccounts: ServiceAccounts | undefined
  readonly #parts: GatewayParts
  readonly #proxyServer: Server
  readonly #adminServer: Server
  #accepting = true

  constructor(parts: GatewayParts) {
    const { shared, agentos, generations } = parts
    this.#parts = parts
    this.logger = shared.logger
    this.metrics = shared.metrics
    this.serviceAccounts = shared.serviceAccounts
    this.#proxyServer = proxyServer(parts)
    this.#adminServer = createAdminServer({
      metrics: shared.metrics,
      readiness: readinessChecks({
        upstream: shared.upstream,
        upstreamHost: parts.upstreamHost,
        agentos,
        store: shared.serviceAccounts?.store,
        jwks: () => generations.current.jwt?.remoteKeySetHealth(),
        open: () => generations.current.mode.open,
      }),
      accepting: () => this.#accepting,
      documents: new Map<string, () => unknown>([
        ['/.well-known/jwks.json', () => generations.current.signer?.jwks() ?? { keys: [] }],
      ]),
    })
  }

  get config(): Config {
    return this.#parts.generations.current.config
  }

  get agentos(): LineInForce | undefined {
    return this.#parts.agentos.inForce
  }

  async start(): Promise<RunningGateway> {
    const { config, agentos, generations } = this.#parts
    const server = config.server
    const port = await listenOrExplain(this.#proxyServer, server.port, server.host, {
      port: settingName('server.port', 'PORTCULLIS_PORT'),
      host: 'server.host',
    })
    let adminPort: number
    try {
      adminPort = await listenOrExplain(this.#adminServer, server.admin_port, server.admin_host, {
        port: settingName('server.admin_port', 'PORTCULLIS_ADMIN_PORT'),
        host: settingName('server.admin_host', 'PORTCULLIS_ADMIN_HOST'),
      })
    } catch (error) {
      await closeServer(this.#proxyServer)
      throw error
    }
    const build = buildInfo()
    this.logger.info(
      {
        port,
        admin_port: adminPort,
        upstream: config.upstream.url,
        agentos: agentos.describe(),
        auth_mode: describeAuthMode(generations.current.mode),
        version: build.version,
        commit: build.commit,
      },
      'portcullis listening',
    )
    return {
      url: listenerUrl(server.host, port),
      port,
      adminUrl: listenerUrl(server.admin_host, adminPort),
      adminPort,
    }
  }

  flushLogsForExit(): void {
    this.#parts.shared.accessLog.flushSync()
  }

  reload(next: Config = this.config): Promise<ReloadResult> {
    return this.#parts.generations.reload(next)
  }

  async stop(): Promise<void> {
    const { config, shared, agentos, generations } = this.#parts
    this.#accepting = false
    // Requests waiting for a read of the upstream's version are answered 503 now.
    agentos.close()
    const closing = closeServer(this.#proxyServer)
    this.#proxyServer.closeIdleConnections()
    const inFlight = shared.inFlight
    const drained = await inFlight.drained(config.server.shutdown_grace_ms)
    if (!drained) {
      this.logger.warn(
        { in_flight: inFlight.count },
        'shutdown grace period over; closing connections',
      )
      inFlight.startCutting()
    }
    for (const generation of generations.live) generation.closeConnections()
    this.#proxyServer.closeAllConnections()
    await closing
    await Promise.all(generations.live.map((generation) => generation.retire()))
    await Promise.all([
      this.#parts.releaseUpstream(),
      closeServer(this.#adminServer),
      shared.serviceAccounts?.stop(),
    ])
    // The last turn's access lines (upgrades closed above included) reach the logger before it
    // is flushed for exit.
    shared.accessLog.flush()
    this.logger.info('portcullis stopped')
  }
}

/** The proxy listener: every request and upgrade through the AgentOS gate to the generation in force. */
function proxyServer(parts: GatewayParts): Server {
  const { config, shared, agentos, generations } = parts
  const { logger, metrics } = shared
  const accessLogOn = (): boolean => generations.current.config.logging.access_log
  const gate = createAgentOsGate({
    admit: () => agentos.admit(),
    target: () => generations.current,
    refuse: unavailableResponder({
      logger,
      metrics,
      inFlight: shared.inFlight,
      accessLog: shared.accessLog,
      config: () => generations.current.config,
    }),
    metrics,
    observeUpgrade: () => ({
      metrics,
      inFlight: shared.inFlight,
      accessLog: shared.accessLog,
      accessLogOn: accessLogOn(),
    }),
  })
  const server = createProxyServer(
    config.server,
    gate.request,
    observeRefusal({
      metrics,
      accessLog: () => (accessLogOn() ? shared.accessLog : undefined),
    }),
  )
  server.on('upgrade', gate.upgrade)
  return server
}
