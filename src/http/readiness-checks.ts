import type { RemoteJwksHealth } from '../auth/jwt/remote/remote-jwks.js'
import { isGatewayError } from '../errors.js'
import { reasonText } from '../reasons.js'
import type { ServiceAccountStore } from '../service-accounts/store.js'
import type { LineReadiness } from '../upstream/agentos-line-watch.js'
import type { UpstreamClient } from '../upstream/upstream-client.js'
import { ReadinessFailure, type ReadinessCheck } from './readiness.js'

const UPSTREAM_PROBE_LIMIT = 65_536

/**
 * What `/readyz` checks: the upstream answers `GET /health`, an AgentOS line is in force (its
 * detail says which and how it was chosen), the service-account store answers a ping (when service
 * accounts are on), and a remote key set, when the config in force has one, has keys (a stale one
 * is a ready detail). A gateway running open says so there too.
 */
export function readinessChecks(deps: {
  readonly upstream: UpstreamClient
  readonly upstreamHost: string
  /** The AgentOS line in force; told whether the upstream answered (answering again is a restart). */
  readonly agentos: {
    readiness(): LineReadiness
    upstreamAnswered(answered: boolean): void
  }
  readonly store: ServiceAccountStore | undefined
  /** The remote key set's health under the config in force; undefined when it has none. */
  readonly jwks: () => RemoteJwksHealth | undefined
  /** Whether the config in force runs open (`auth.open`). */
  readonly open: () => boolean
}): ReadinessCheck[] {
  const { upstream, upstreamHost, agentos, store, jwks, open } = deps
  const checks: ReadinessCheck[] = [
    {
      name: 'upstream',
      check: async () => {
        try {
          await upstream.fetch(
            { method: 'GET', path: '/health', headers: ['host', upstreamHost], body: null },
            UPSTREAM_PROBE_LIMIT,
            { caller: 'probe' },
          )
        } catch (error) {
          agentos.upstreamAnswered(false)
          throw probeFailure(error)
        }
        agentos.upstreamAnswered(true)
      },
    },
    {
      name: 'agentos',
      check: async () => {
        const { ready, detail } = agentos.readiness()
        if (!ready) throw new Error(detail)
        return detail
      },
    },
  ]
  if (store !== undefined) checks.push({ name: 'store', check: () => store.ping() })
  checks.push({
    name: 'jwks',
    applies: () => jwks() !== undefined,
    check: async () => {
      const health = jwks()
      if (health !== undefined && !health.ready) throw new Error(health.detail)
      return health?.detail
    },
  })
  checks.push({
    name: 'auth',
    applies: open,
    check: async () =>
      'open (auth.open): requests without a credential are forwarded to the upstream',
  })
  return checks
}

/** `refused: the upstream refused the connection (nothing listens)`, counted as `refused`. */
function probeFailure(error: unknown): unknown {
  if (!isGatewayError(error) || !error.reason.startsWith('upstream.')) return error
  const kind = error.reason.slice('upstream.'.length)
  return new ReadinessFailure(kind, `${kind}: ${reasonText(error.reason)}`)
}
