import type { Server } from 'node:http'
import type { Config } from './config/schema.js'
import { createLogger, type Logger } from './logger.js'
import { Metrics } from './metrics.js'
import { createAdminServer } from './http/admin-server.js'
import { createApp } from './http/app.js'
import { TrustedProxies } from './http/client-address.js'
import { InFlight } from './http/in-flight.js'
import { forward } from './http/middleware/forward.js'
import type { ReadinessCheck } from './http/readiness.js'
import { closeServer, createProxyServer, listen } from './http/servers.js'
import { UpstreamClient } from './http/upstream-client.js'
import type { UpstreamHeaderOptions } from './http/upstream-headers.js'
import { UpgradeHandler, offeredProtocols } from './http/upgrade.js'

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
  start(): Promise<RunningGateway>
  /** Graceful: stop accepting, let in-flight requests finish (bounded), close WebSockets, release. */
  stop(): Promise<void>
}

/** The composition root: the only place that creates the gateway's parts and wires them together. */
export async function createGateway(config: Config, options: GatewayOptions = {}): Promise<Gateway> {
  const logger = options.logger ?? createLogger({ level: config.logging.level })
  const metrics = new Metrics({ collectProcessMetrics: options.collectProcessMetrics ?? true })
  const trustedProxies = new TrustedProxies(config.server.trusted_proxies)
  const inFlight = new InFlight()
  const upstream = new UpstreamClient(config.upstream, (kind) => metrics.upstreamErrors.inc({ kind }))
  const headerOptions: UpstreamHeaderOptions = {
    identityPrefixes: ['x-auth-'],
    identityNames: new Set(),
    preserveHost: config.upstream.preserve_host,
    upstreamHost: new URL(config.upstream.url).host,
  }

  const app = createApp({
    logger,
    metrics,
    inFlight,
    trustedProxies,
    allowedOrigins: config.cors.allowed_origins,
    accessLog: config.logging.access_log,
    maxHeadersCount: config.server.max_headers_count,
    stages: [],
    forward: forward({ upstream, headerOptions, metrics }),
  })
  const upgrades = new UpgradeHandler({
    config,
    logger,
    metrics,
    trustedProxies,
    headerOptions,
    gate: async (inbound) => ({ protocols: offeredProtocols(inbound) }),
  })
  const proxyServer = createProxyServer(config.server, app.callback())
  proxyServer.on('upgrade', upgrades.handle)

  let accepting = true
  const readiness: ReadinessCheck[] = [
    {
      name: 'upstream',
      check: async () => {
        await upstream.fetch({ method: 'GET', path: '/health', headers: ['host', headerOptions.upstreamHost], body: null }, 65_536)
      },
    },
  ]
  const adminServer: Server = createAdminServer({ metrics, readiness, accepting: () => accepting })

  return {
    config,
    logger,
    metrics,
    async start() {
      const port = await listen(proxyServer, config.server.port, config.server.host)
      const adminPort = await listen(adminServer, config.server.admin_port, config.server.admin_host)
      const host = config.server.host === '0.0.0.0' || config.server.host === '::' ? '127.0.0.1' : config.server.host
      logger.info({ port, admin_port: adminPort, upstream: config.upstream.url }, 'portcullis listening')
      return { url: `http://${host}:${port}`, port, adminUrl: `http://${host}:${adminPort}`, adminPort }
    },
    async stop() {
      accepting = false
      const closing = closeServer(proxyServer)
      proxyServer.closeIdleConnections()
      const drained = await inFlight.drained(config.server.shutdown_grace_ms)
      if (!drained) logger.warn({ in_flight: inFlight.count }, 'shutdown grace period over; closing connections')
      upgrades.closeAll()
      proxyServer.closeAllConnections()
      await closing
      await Promise.all([upstream.close(), closeServer(adminServer)])
      logger.info('portcullis stopped')
    },
  }
}
