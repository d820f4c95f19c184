import { isGatewayError } from '../errors.js'
import { decideFromInfo, decideFromRoutes, type Detection } from './agentos-detection.js'
import type { UpstreamClient } from './upstream-client.js'

/** What one probe found: the upstream's answer, or that it did not answer (yet). */
export type ProbeOutcome = Detection | { readonly kind: 'unreachable'; readonly why: string }

/**
 * Marks the gateway's own requests to the upstream, so that they can be told from the requests it
 * forwards (in the upstream's logs, and by the demo runtime's request record). Nothing decides on
 * it: the upstream is not the gateway's client.
 */
export const PROBE_HEADER = ['x-portcullis-probe', 'agentos-version'] as const

const INFO_LIMIT = 65_536
// AgentOS describes every route and schema in it: megabytes with many components.
const OPENAPI_LIMIT = 32 * 1024 * 1024
const PROBE_TIMEOUT_MS = 10_000

/**
 * Reads which AgentOS the upstream runs: `GET /info`, and `GET /openapi.json` only when /info
 * carries no release number (`decideFromInfo`). Never rejects: a failure to connect, a timeout or
 * a 5xx (an upstream still starting, a proxy in between) is `unreachable` and worth retrying;
 * any other answer that is not what AgentOS sends is `unreadable`.
 */
export async function probeAgentOsLine(
  upstream: UpstreamClient,
  upstreamHost: string,
): Promise<ProbeOutcome> {
  const info = await get(upstream, upstreamHost, '/info', INFO_LIMIT)
  if (info.kind === 'unreachable') return info
  if (info.kind === 'refused') return { kind: 'unreadable', why: info.why }
  const verdict = decideFromInfo(parseJson(info.body))
  if (verdict.kind !== 'shape') return verdict
  const openapi = await get(upstream, upstreamHost, '/openapi.json', OPENAPI_LIMIT)
  if (openapi.kind === 'unreachable') return openapi
  return decideFromRoutes(verdict, openapi.kind === 'answered' ? paths(openapi.body) : undefined)
}

type Fetched =
  | { readonly kind: 'answered'; readonly body: Buffer }
  /** An answer that is not a document: another status, or too large. */
  | { readonly kind: 'refused'; readonly why: string }
  | { readonly kind: 'unreachable'; readonly why: string }

async function get(
  upstream: UpstreamClient,
  host: string,
  path: string,
  maxBytes: number,
): Promise<Fetched> {
  try {
    const response = await upstream.fetch(
      {
        method: 'GET',
        path,
        headers: ['host', host, 'accept', 'application/json', ...PROBE_HEADER],
        body: null,
      },
      maxBytes,
      { timeoutMs: PROBE_TIMEOUT_MS, caller: 'probe' },
    )
    if (response.status >= 500)
      return { kind: 'unreachable', why: `GET ${path} answered ${response.status}` }
    if (response.status !== 200)
      return { kind: 'refused', why: `GET ${path} answered ${response.status}` }
    return { kind: 'answered', body: response.body }
  } catch (error) {
    if (isGatewayError(error) && error.reason === 'upstream.response_too_large')
      return { kind: 'refused', why: `GET ${path} answered more than ${maxBytes} bytes` }
    const reason = isGatewayError(error) ? error.reason : undefined
    return { kind: 'unreachable', why: reason?.replace(/^upstream\./, '') ?? 'failed' }
  }
}

function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8')) as unknown
  } catch {
    return undefined
  }
}

/** The keys of an OpenAPI document's `paths`, or undefined when it has none. */
function paths(body: Buffer): string[] | undefined {
  const document = parseJson(body)
  if (typeof document !== 'object' || document === null) return undefined
  const table = (document as { paths?: unknown }).paths
  if (typeof table !== 'object' || table === null || Array.isArray(table)) return undefined
  return Object.keys(table)
}
