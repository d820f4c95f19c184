import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http'
import type { Duplex } from 'node:stream'
import type { AccessLog } from '../access-log.js'
import type { Config } from '../config/schema.js'
import { GatewayError } from '../errors.js'
import { TrustedProxies } from '../inbound/client-address.js'
import type { Logger } from '../logger.js'
import type { Metrics } from '../metrics.js'
import { agentosCatalogue, AGENTOS_LINES } from '../policy/catalogue/index.js'
import { routeFamilies, unmatchedRoute } from '../policy/catalogue/route-catalogue.js'
import { createApp } from './app.js'
import type { InFlight } from './in-flight.js'
import { refuseUpgrade } from './upgrade.js'
import { UpgradeObservation, type UpgradeObserverDeps } from './upgrade-observation.js'

/** Where admitted requests and upgrades go: the generation in force. */
export interface GateTarget {
  readonly handleRequest: (req: IncomingMessage, res: ServerResponse) => void
  readonly handleUpgrade: (req: IncomingMessage, socket: Duplex, head: Buffer) => void
}

export interface AgentOsGate {
  readonly request: RequestListener
  readonly upgrade: (req: IncomingMessage, socket: Duplex, head: Buffer) => void
}

const RETRY_AFTER_SECONDS = '5'

/** The answer while no AgentOS line decides requests. */
export function agentosUnknown(): GatewayError {
  return new GatewayError('AGENTOS_UNKNOWN', "The upstream's AgentOS version is not known yet", {
    reason: 'agentos.unknown',
    headers: { 'retry-after': RETRY_AFTER_SECONDS },
  })
}

/**
 * Everything on the proxy listener passes here before any generation sees it: what is decided,
 * forwarded or answered locally (the service-account API, excluded routes) depends on the AgentOS
 * line, so while none is known to be in force nothing is decided. A request waits for a pending
 * read of the upstream's version (the watch bounds the wait), then goes to the generation in force
 * (the one built for the line just read), or is answered 503 with Retry-After, counted and logged
 * by `refuse`. Upgrades alike, on the raw socket. The hot path is one call that returns true.
 */
export function createAgentOsGate(deps: {
  readonly admit: () => true | Promise<boolean>
  readonly target: () => GateTarget
  /** Answers a refused request (`unavailableListener`). */
  readonly refuse: RequestListener
  readonly metrics: Metrics
  /** How a refused upgrade is observed under the config in force. */
  readonly observeUpgrade: () => UpgradeObserverDeps
}): AgentOsGate {
  const { admit, target, refuse, metrics } = deps
  return {
    request(req, res) {
      const admitted = admit()
      if (admitted === true) {
        target().handleRequest(req, res)
        return
      }
      void admitted.then((ok) => (ok ? target().handleRequest(req, res) : refuse(req, res)))
    },
    upgrade(req, socket, head) {
      const admitted = admit()
      if (admitted === true) {
        target().handleUpgrade(req, socket, head)
        return
      }
      const ignore = (): void => {
        socket.destroy()
      }
      socket.on('error', ignore)
      void admitted.then((ok) => {
        socket.off('error', ignore)
        if (ok) {
          target().handleUpgrade(req, socket, head)
          return
        }
        const observation = new UpgradeObservation(deps.observeUpgrade(), req, socket)
        refuseUpgrade({ metrics }, socket, agentosUnknown(), observation)
      })
    },
  }
}

/**
 * Answers a refused request through the request path of the config in force: observed (metrics,
 * access log when on, in-flight), with a request id, 503 `{"detail": …}` from the one error
 * handler. Built once per config.
 */
export function unavailableResponder(deps: {
  readonly logger: Logger
  readonly metrics: Metrics
  readonly inFlight: InFlight
  readonly accessLog: AccessLog
  readonly config: () => Config
}): RequestListener {
  const built = new WeakMap<Config, RequestListener>()
  const families = routeFamilies(AGENTOS_LINES.map(agentosCatalogue))
  return (req, res) => {
    const config = deps.config()
    let listener = built.get(config)
    if (listener === undefined) {
      const app = createApp({
        logger: deps.logger,
        metrics: deps.metrics,
        inFlight: deps.inFlight,
        inbound: {
          trustedProxies: new TrustedProxies(config.server.trusted_proxies),
          maxHeadersCount: config.server.max_headers_count,
        },
        bodyLimits: {
          maxBytes: config.server.max_body_bytes,
          maxDepth: config.server.max_json_depth,
        },
        refusals: { allowedOrigins: config.cors.allowed_origins },
        match: (method, path) => unmatchedRoute(method, path, families),
        accessLog: deps.accessLog,
        accessLogOn: config.logging.access_log,
        stages: [],
        forward: () => {
          throw agentosUnknown()
        },
      })
      const callback = app.callback()
      listener = (request, response) => void callback(request, response)
      built.set(config, listener)
    }
    listener(req, res)
  }
}
