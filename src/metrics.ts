import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client'
import type { BuildInfo } from './build-info.js'
import { CONNECTION_FAILURES } from './connection-failure.js'
import { HotCounter, HotHistogram } from './hot-metrics.js'
import type { Reason } from './reasons.js'

/** The AgentOS line in force, as `portcullis_agentos_info` labels it. */
export interface AgentOsInfo {
  readonly line: string
  readonly version: string
  readonly source: string
}

/** What the metrics show of the remote key set. */
export interface RemoteJwksStatus {
  readonly state: 'fresh' | 'stale' | 'unavailable'
  readonly keys: number
  readonly ageSeconds: number | undefined
}

const LATENCY_BUCKETS = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30,
]

/**
 * How often the event-loop delay is sampled (prom-client's `eventLoopMonitoringPrecision`, 10 ms
 * by default). Each sample wakes the process: at 10 ms an idle gateway woke about 110 times and
 * used about 3.8 ms of CPU a second, at 100 ms about 22 times and 1.4 ms. A stall this long or
 * longer is always seen; a shorter one is seen in proportion to its length.
 */
export const EVENT_LOOP_RESOLUTION_MS = 100

const GAUGES_NAMED_LIKE_COUNTERS = [
  'portcullis_nodejs_active_resources_total',
  'portcullis_nodejs_active_handles_total',
  'portcullis_nodejs_active_requests_total',
]

/**
 * The gateway's own metrics, on its own registry (never the global one, so several gateways can
 * run in one test process). Labels are bounded: route labels are templates or families, never raw
 * paths, and no label carries a user id or a credential.
 */
export class Metrics {
  readonly registry = new Registry()

  readonly requests = new HotCounter({
    name: 'portcullis_http_requests_total',
    help: 'HTTP requests answered, by method, route family and status.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry],
  })

  readonly requestDuration = new HotHistogram({
    name: 'portcullis_http_request_duration_seconds',
    help: 'Time from request arrival to the end of the response, by method and route family.',
    labelNames: ['method', 'route'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  })

  readonly upstreamDuration = new HotHistogram({
    name: 'portcullis_upstream_response_seconds',
    help: 'Time the upstream took to send response headers, by route family.',
    labelNames: ['route'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [this.registry],
  })

  /** The requests in progress, read at scrape time (no gauge update per request). */
  #inFlightCount: () => number = () => 0

  readonly inFlight = new Gauge({
    name: 'portcullis_http_requests_in_flight',
    help: 'HTTP requests, and WebSocket upgrades until their handshake is answered, being processed.',
    registers: [this.registry],
    collect: () => {
      this.inFlight.set(this.#inFlightCount())
    },
  })

  readonly upstreamErrors = new Counter({
    name: 'portcullis_upstream_errors_total',
    help: `Requests that failed to reach the upstream or to get its answer, by kind (${CONNECTION_FAILURES.join(', ')}); readiness probes are counted in portcullis_readiness_checks_total instead.`,
    labelNames: ['kind'] as const,
    registers: [this.registry],
  })

  readonly readinessChecks = new Counter({
    name: 'portcullis_readiness_checks_total',
    help: `Checks run by /readyz, by check (upstream, store, jwks) and result (ok; for the upstream the failure kind: ${CONNECTION_FAILURES.join(', ')}; failed; timeout).`,
    labelNames: ['check', 'result'] as const,
    registers: [this.registry],
  })

  readonly buildInfo = new Gauge({
    name: 'portcullis_build_info',
    help: 'Always 1; the labels name the running build: version, commit and Node.js version.',
    labelNames: ['version', 'commit', 'node_version'] as const,
    registers: [this.registry],
  })

  readonly websocketConnections = new Gauge({
    name: 'portcullis_websocket_connections',
    help: 'Open proxied WebSocket connections.',
    registers: [this.registry],
  })

  readonly websocketUpgrades = new Counter({
    name: 'portcullis_websocket_upgrades_total',
    help: 'WebSocket upgrade attempts, by outcome (accepted or the refusing status).',
    labelNames: ['outcome'] as const,
    registers: [this.registry],
  })

  readonly jwksReloads = new Counter({
    name: 'portcullis_jwks_reloads_total',
    help: 'JWKS file reads after startup, by result (updated, unchanged, failed) and trigger (watch, signal, unknown_kid).',
    labelNames: ['result', 'trigger'] as const,
    registers: [this.registry],
  })

  /** The remote key set's state, read at scrape time (set while one is configured). */
  #remoteJwks: (() => RemoteJwksStatus) | undefined

  readonly jwksKeys = new Gauge({
    name: 'portcullis_jwks_keys',
    help: 'Usable keys in the key set in use, by source (file: auth.jwks_file; remote: auth.jwks_url or auth.oidc_issuer, keys in their removal grace included).',
    labelNames: ['source'] as const,
    registers: [this.registry],
    collect: () => {
      const status = this.#remoteJwks?.()
      if (status === undefined) this.jwksKeys.remove({ source: 'remote' })
      else this.jwksKeys.set({ source: 'remote' }, status.keys)
    },
  })

  readonly jwksAge = new Gauge({
    name: 'portcullis_jwks_age_seconds',
    help: 'Seconds since the remote key set was last confirmed by its provider (a 200 or a 304); absent while none was ever loaded.',
    labelNames: ['source'] as const,
    registers: [this.registry],
    collect: () => {
      const age = this.#remoteJwks?.().ageSeconds
      if (age === undefined) this.jwksAge.remove({ source: 'remote' })
      else this.jwksAge.set({ source: 'remote' }, age)
    },
  })

  readonly jwksState = new Gauge({
    name: 'portcullis_jwks_state',
    help: 'State of the remote key set: 1 for the current one of fresh (last fetch good), stale (fetches fail, the last good set is served) and unavailable (none loaded, or past auth.jwks_max_stale_seconds: JWTs needing it get 503).',
    labelNames: ['state'] as const,
    registers: [this.registry],
    collect: () => {
      const status = this.#remoteJwks?.()
      for (const state of ['fresh', 'stale', 'unavailable'] as const) {
        if (status === undefined) this.jwksState.remove({ state })
        else this.jwksState.set({ state }, status.state === state ? 1 : 0)
      }
    },
  })

  readonly jwksFetches = new Counter({
    name: 'portcullis_jwks_fetches_total',
    help: `Fetches of the remote key set, by trigger (startup, refresh, retry, unknown_kid, signal) and outcome (updated, unchanged, not_modified; or the failure: ${CONNECTION_FAILURES.join(', ')}, blocked, http_status, too_large, invalid).`,
    labelNames: ['trigger', 'outcome'] as const,
    registers: [this.registry],
  })

  readonly jwksFetchDuration = new Histogram({
    name: 'portcullis_jwks_fetch_duration_seconds',
    help: 'Time a fetch of the remote key set took (discovery included), by result (ok, failed).',
    labelNames: ['result'] as const,
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [this.registry],
  })

  readonly jwtCacheLookups = new Counter({
    name: 'portcullis_jwt_cache_lookups_total',
    help: 'Verified-JWT cache lookups, by result (hit or miss).',
    labelNames: ['result'] as const,
    registers: [this.registry],
  })

  readonly configReloads = new Counter({
    name: 'portcullis_config_reloads_total',
    help: 'Configuration reloads (SIGHUP or file change), by result (applied, invalid, failed).',
    labelNames: ['result'] as const,
    registers: [this.registry],
  })

  readonly authOutcomes = new HotCounter({
    name: 'portcullis_auth_outcomes_total',
    help: 'Authentication and authorization decisions, by credential kind, outcome (allowed, denied) and reason.',
    labelNames: ['credential', 'outcome', 'reason'] as const,
    registers: [this.registry],
  })

  readonly authDuration = new HotHistogram({
    name: 'portcullis_auth_duration_seconds',
    help: 'Time spent authenticating and authorizing a request (the gateway overhead before forwarding), by credential kind.',
    labelNames: ['credential'] as const,
    buckets: [
      0.00001, 0.000025, 0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.05, 0.25,
      1,
    ],
    registers: [this.registry],
  })

  /** The AgentOS line in force, read at scrape time. */
  #agentos: () => AgentOsInfo | undefined = () => undefined

  readonly agentosInfo = new Gauge({
    name: 'portcullis_agentos_info',
    help: 'The AgentOS line whose route catalogue decides requests: 1, labelled with the line, the agno version the upstream reports (unknown when it reports none) and how the line was chosen (detected or pinned); absent while no line is in force.',
    labelNames: ['line', 'version', 'source'] as const,
    registers: [this.registry],
    collect: () => {
      this.agentosInfo.reset()
      const info = this.#agentos()
      if (info !== undefined) this.agentosInfo.set({ ...info }, 1)
    },
  })

  /** Reports `count` as the requests in flight from now on. */
  reportInFlight(count: () => number): void {
    this.#inFlightCount = count
  }

  /** Reports `info` as the AgentOS line in force from now on. */
  reportAgentOs(info: () => AgentOsInfo | undefined): void {
    this.#agentos = info
  }

  /** One answered request (the hot path: label combinations are bound once). */
  countRequest(method: string, route: string, status: number, seconds: number): void {
    this.requests.inc(method, route, statusText(status))
    this.requestDuration.observe(seconds, method, route)
  }

  observeUpstream(route: string, seconds: number): void {
    this.upstreamDuration.observe(seconds, route)
  }

  countAuthOutcome(credential: string, outcome: 'allowed' | 'denied', reason: Reason | 'ok'): void {
    this.authOutcomes.inc(credential, outcome, reason)
  }

  observeAuth(credential: string, seconds: number): void {
    this.authDuration.observe(seconds, credential)
  }

  /**
   * Reports `status` as the remote key set's metrics until the returned function is called (a
   * later registration replaces an earlier one, as a new key source replaces the old on reload).
   */
  trackRemoteJwks(status: () => RemoteJwksStatus): () => void {
    this.#remoteJwks = status
    return () => {
      if (this.#remoteJwks === status) this.#remoteJwks = undefined
    }
  }

  /** Sets `portcullis_build_info` to the build this process runs. */
  reportBuild(build: BuildInfo): void {
    this.buildInfo.set(
      { version: build.version, commit: build.commit, node_version: build.nodeVersion },
      1,
    )
  }

  constructor(options: { collectProcessMetrics?: boolean } = {}) {
    if (options.collectProcessMetrics !== false) {
      collectDefaultMetrics({
        register: this.registry,
        prefix: 'portcullis_',
        eventLoopMonitoringPrecision: EVENT_LOOP_RESOLUTION_MS,
      })
      // prom-client names three gauges `…_total`, a suffix Prometheus reserves for counters; each
      // is the sum of its per-type gauge (`sum(portcullis_nodejs_active_handles)`), so they go.
      for (const name of GAUGES_NAMED_LIKE_COUNTERS) this.registry.removeSingleMetric(name)
    }
  }

  async render(): Promise<string> {
    return this.registry.metrics()
  }
}

const STATUS_TEXTS = new Map<number, string>()

/** A status as its label (the few statuses a gateway answers, each made into a string once). */
function statusText(status: number): string {
  let text = STATUS_TEXTS.get(status)
  if (text === undefined) {
    text = String(status)
    if (STATUS_TEXTS.size < 1_000) STATUS_TEXTS.set(status, text)
  }
  return text
}
