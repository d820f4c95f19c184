import { GatewayError } from '../../errors.js'
import type { Reason } from '../../reasons.js'
import type { UpstreamClient } from '../../upstream/upstream-client.js'
import { parseJson } from './json.js'

const MAX_LOOKUP_BYTES = 4 * 1024 * 1024

/** A GET the gateway makes to the upstream for its own decisions; the upstream is open. */
export type UpstreamLookup = (path: string) => Promise<{ status: number; value: unknown }>

export function upstreamLookup(upstream: UpstreamClient, upstreamHost: string): UpstreamLookup {
  return async (path) => {
    const response = await upstream.fetch(
      {
        method: 'GET',
        path,
        headers: ['host', upstreamHost, 'accept', 'application/json'],
        body: null,
      },
      MAX_LOOKUP_BYTES,
    )
    return { status: response.status, value: parseJson(response.body)?.value }
  }
}

/** The reasons of a lookup that failed. */
export type LookupReason = Extract<Reason, `${string}_lookup`>

/** The decision needs an answer the upstream did not give: fail closed. */
export function lookupFailed(reason: LookupReason): GatewayError {
  return new GatewayError('UPSTREAM_UNAVAILABLE', 'Upstream unavailable', { reason })
}
