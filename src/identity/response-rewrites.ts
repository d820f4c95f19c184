import type { AuthMode } from '../config/auth-mode.js'
import { GatewayError } from '../errors.js'
import type { ResponseRewrite } from '../upstream/forward-plan.js'
import type { BufferedResponse } from '../upstream/upstream-client.js'

// Headers describing the upstream's bytes, wrong once the body is rewritten.
const BODY_BOUND_HEADERS = new Set([
  'content-length',
  'etag',
  'content-md5',
  'digest',
  'content-digest',
])

/** A 2xx answer with a body. */
export function isSuccess(response: BufferedResponse): boolean {
  return response.status >= 200 && response.status < 300 && response.body.length > 0
}

/** An answer in a content encoding the gateway cannot read. */
export function isEncoded(response: BufferedResponse): boolean {
  const encoding = response.headers['content-encoding']
  if (encoding === undefined) return false
  const value = (Array.isArray(encoding) ? encoding.join(',') : encoding).trim().toLowerCase()
  return value !== '' && value !== 'identity'
}

function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'))
  } catch {
    return undefined
  }
}

/** The answer with `value` as its JSON body, the headers that described the old bytes dropped. */
export function replaceJsonBody(response: BufferedResponse, value: unknown): BufferedResponse {
  const body = Buffer.from(JSON.stringify(value), 'utf8')
  const headers: Record<string, string | string[]> = {}
  for (const [name, headerValue] of Object.entries(response.headers)) {
    if (!BODY_BOUND_HEADERS.has(name.toLowerCase())) headers[name] = headerValue
  }
  headers['content-length'] = String(body.length)
  return { status: response.status, headers, body }
}

/** A listing that must be filtered came compressed: refused rather than passed whole. */
export function unfilterableListing(): GatewayError {
  return new GatewayError('UPSTREAM_UNAVAILABLE', 'Upstream listing could not be filtered', {
    reason: 'identity.listing_encoded',
  })
}

/**
 * `GET /agents|/teams|/workflows` (RBAC-2): keeps the items whose `id` the caller may see.
 * The request goes without Accept-Encoding; a compressed listing could not be filtered, so it is
 * refused rather than passed whole.
 */
export function filterListing(accessible: ReadonlySet<string>): ResponseRewrite {
  return (response) => {
    if (!isSuccess(response)) return response
    if (isEncoded(response)) throw unfilterableListing()
    const items = parseJson(response.body)
    if (!Array.isArray(items)) return response
    const visible = items.filter((item: unknown) => {
      const id =
        typeof item === 'object' && item !== null ? (item as { id?: unknown }).id : undefined
      return typeof id === 'string' && accessible.has(id)
    })
    return replaceJsonBody(response, visible)
  }
}

/**
 * `GET /info`: the upstream runs open and says `none`; clients must see the gateway's mode. When
 * the gateway itself runs open (`auth.open`), `auth_mode` stays AgentOS's `none` (which AgentOS
 * clients read) and `portcullis.auth` says `open`.
 */
export function reportAuthMode(mode: AuthMode, open: boolean): ResponseRewrite {
  return (response) => {
    if (!isSuccess(response) || isEncoded(response)) return response
    const info = parseJson(response.body)
    if (typeof info !== 'object' || info === null || Array.isArray(info)) return response
    const gateway = open ? { portcullis: { auth: 'open' } } : {}
    return replaceJsonBody(response, { ...info, auth_mode: mode, ...gateway })
  }
}
