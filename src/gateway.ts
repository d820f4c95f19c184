import type { Server } from 'node:http'
import { describeAuthMode } from './config/auth-mode.js'
import type { Config } from './config/schema.js'
import { configWarnings } from './config/warnings.js'
import { restartOnlyChanges, withRestartOnlyKeysOf } from './config/restart-only.js'
import { AccessLog } from './access-log.js'
import { buildInfo } from './build-info.js'
import {
  createGeneration,
  type AgentOsChoice,
  type Generation,
  type SharedParts,
} from './generation.js'
import { createAdminServer } from './http/admin-server.js'
import { createAgentOsGate, unavailableResponder } from './http/agentos-gate.js'
import { InFlight } from './http/in-flight.js'
import { observeRefusal } from './http/middleware/observe.js'
import { readinessChecks } from './http/readiness-checks.js'
import { closeServer, createProxyServer, listenerUrl, listenOrExplain } from './http/servers.js'
import { AGENTOS_LINES } from './policy/catalogue/agentos-line.js'
import {
  AgentOsLineWatch,
  pinContradicted,
  type LineInForce,
} from './upstream/agentos-line-watch.js'
import { probeAgentOsLine } from './upstream/agentos-probe.js'
import { UpstreamClient } from './upstream/upstream-client.js'
import { WebSocketAdmission } from './http/websocket-limits.js'
import { McpProtocolVersions } from './surfaces/mcp/protocol-versions.js'
import { createLogger, type Logger } from './logger.js'
import { Metrics } from './metrics.js'
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
  const build = buildInfo()
  metrics.reportBuild(build)
  const upstreamHost = new URL(config.upstream.url).host
  const upstream = new UpstreamClient(config.upstream, (kind) => {
    metrics.upstreamErrors.inc({ kind })
    // A connection that could not be made or was cut: the upstream may be restarting.
    if (kind === 'refused' || kind === 'reset') agentos.suspect()
  })
  const agentos = new AgentOsLineWatch({
    setting: config.upstream.agentos_version,
    upstreamUrl: config.upstream.url,
    probe: () => probeAgentOsLine(upstream, upstreamHost),
    apply: (inForce) => applyLine(inForce),
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
      ? await startServiceAccounts(config, logger, metrics.registry)
      : undefined
  } catch (error) {
    await releaseUpstream()
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
    mcpVersions: new McpProtocolVersions(logger),
  }
  metrics.reportInFlight(() => shared.inFlight.count)
  metrics.reportAgentOs(() => agentos.labels())
  // The line the generation in force was built with (undefined: none was known).
  let applied = agentos.inForce
  let current: Generation
  try {
    current = await createGeneration(config, shared, agentosChoice(config, applied))
  } catch (error) {
    await Promise.all([releaseUpstream(), serviceAccounts?.stop()])
    // Keys, key files and identity settings are built here: what fails is the configuration.
    throw configCannotBeApplied(error)
  }
  const live = new Set<Generation>([current])
  warnIfOpen(current, logger)

  // Reloads and line changes build generations one at a time, each from the one in force.
  let swaps: Promise<unknown> = Promise.resolve()
  const oneAtATime = <T>(task: () => Promise<T>): Promise<T> => {
    const run = swaps.then(task)
    swaps = run.catch(() => undefined)
    return run
  }
  const swapIn = (generation: Generation): void => {
    const previous = current
    current = generation
    live.add(generation)
    void previous.retire(generation.jwt).then(() => live.delete(previous))
  }
  // A line the watch read (or a pinned one the upstream now contradicts or confirms): a new
  // generation when the line or the effective deny_unmapped_routes differs from the one in force.
  const applyLine = (inForce: LineInForce): Promise<void> =>
    oneAtATime(async () => {
      const choice = agentosChoice(current.config, inForce)
      if (!sameChoice(choice, current.agentos)) {
        swapIn(await createGeneration(current.config, shared, choice, current))
        logger.info(
          { agentos: choice.line, deny_unmapped_routes: choice.denyUnmappedRoutes },
          'requests are decided with the AgentOS line read from the upstream',
        )
      }
      applied = inForce
    })
  agentos.follow()

  const gate = createAgentOsGate({
    admit: () => agentos.admit(),
    target: () => current,
    refuse: unavailableResponder({
      logger,
      metrics,
      inFlight: shared.inFlight,
      accessLog: shared.accessLog,
      config: () => current.config,
    }),
    metrics,
    observeUpgrade: () => ({
      metrics,
      inFlight: shared.inFlight,
      accessLog: shared.accessLog,
      accessLogOn: current.config.logging.access_log,
    }),
  })
  const proxyServer = createProxyServer(
    config.server,
    gate.request,
    observeRefusal({
      metrics,
      accessLog: () => (current.config.logging.access_log ? shared.accessLog : undefined),
    }),
  )
  proxyServer.on('upgrade', gate.upgrade)

  let accepting = true
  const readiness = readinessChecks({
    upstream,
    upstreamHost,
    agentos,
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

  const reload = async (next: Config): Promise<ReloadResult> => {
    const restartRequired = restartOnlyChanges(current.config, next)
    const merged = withRestartOnlyKeysOf(current.config, next)
    let generation: Generation
    try {
      generation = await createGeneration(merged, shared, agentosChoice(merged, applied), current)
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error)
      metrics.configReloads.inc({ result: 'failed' })
      logger.error({ err: error }, 'reload failed; the previous configuration stays in effect')
      return { outcome: 'failed', restartRequired, error: message }
    }
    swapIn(generation)
    logger.level = next.logging.level
    metrics.configReloads.inc({ result: 'applied' })
    if (restartRequired.length > 0)
      logger.warn({ keys: restartRequired }, 'these changes take effect only after a restart')
    logger.info({ auth_mode: describeAuthMode(generation.mode) }, 'configuration reloaded')
    warnIfOpen(generation, logger)
    return { outcome: 'applied', restartRequired }
  }

  return {
    get config() {
      return current.config
    },
    get agentos() {
      return agentos.inForce
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
          agentos: agentos.describe(),
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
    reload(next = current.config) {
      return oneAtATime(() => reload(next))
    },
    async stop() {
      accepting = false
      // Requests waiting for a read of the upstream's version are answered 503 now.
      agentos.close()
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
      await Promise.all([releaseUpstream(), closeServer(adminServer), serviceAccounts?.stop()])
      logger.info('portcullis stopped')
    },
  }
}

/** The configuration's security warnings (the same `config check` prints), at every start and reload. */
function warnIfOpen(generation: Generation, logger: Logger): void {
  for (const warning of configWarnings(generation.config)) logger.warn(warning)
}

/**
 * What a generation decides with. A pinned line the upstream contradicts denies unmapped routes
 * unless the setting says otherwise. While no line is in force (auto, the upstream not read yet)
 * the generation is built for the newest line only so that a configuration that cannot be applied
 * fails the start as it would otherwise; the gate keeps every request away from it, and the line
 * read later replaces it.
 */
function agentosChoice(config: Config, inForce: LineInForce | undefined): AgentOsChoice {
  if (inForce === undefined)
    return { line: AGENTOS_LINES[AGENTOS_LINES.length - 1] ?? '3.0', denyUnmappedRoutes: true }
  return {
    line: inForce.line,
    denyUnmappedRoutes: config.auth.deny_unmapped_routes ?? pinContradicted(inForce),
  }
}

function sameChoice(a: AgentOsChoice, b: AgentOsChoice): boolean {
  return a.line === b.line && a.denyUnmappedRoutes === b.denyUnmappedRoutes
}
