import type { IncomingHttpHeaders } from 'node:http'
import { isReservedPrincipal, type Principal } from '../principal.js'
import { GatewayError } from '../errors.js'
import { normalizeHeaderName } from '../upstream/upstream-headers.js'
import { encodeIdHeaderValue, jsonHeaderValue } from './header-values.js'

/** AgentOS A2A reads the caller's user id from this header (ISO-2). */
export const USER_ID_HEADER = 'x-user-id'

export type InjectedHeaders = readonly (readonly [string, string])[]

const NONE: InjectedHeaders = Object.freeze([])

/**
 * The verified identity headers for a principal: `X-Auth-*` for authenticated principals, and
 * `X-User-ID` whenever there is a user id. Ids are percent-encoded outside visible ASCII and
 * JSON values use `\u` escapes, so every value is a valid field value.
 *
 * The names are lowercase literals, as HTTP/2 writes every name: undici looks each name up among
 * the names it knows and lowercases and checks it when it is not one of them, and a lowercase
 * literal comes back from that as the same string, where a mixed-case name made a new string and
 * a string-table lookup for it (about 850 instructions a field, five fields a service account).
 */
export function identityHeaders(principal: Principal): InjectedHeaders {
  const headers: [string, string][] = []
  const { userId, sessionId } = principal
  if (principal.authenticated) {
    if (userId !== null) headers.push(['x-auth-user-id', encodeIdHeaderValue(userId)])
    headers.push(['x-auth-kind', principal.kind])
    if (principal.scopes !== null)
      headers.push(['x-auth-scopes', jsonHeaderValue(principal.scopes)])
    if (sessionId !== null) headers.push(['x-auth-session-id', encodeIdHeaderValue(sessionId)])
    if (principal.serviceAccount !== undefined) {
      headers.push(['x-auth-service-account', encodeIdHeaderValue(principal.serviceAccount.name)])
    }
    if (principal.dependencies !== undefined) {
      headers.push(['x-auth-dependencies', jsonHeaderValue(principal.dependencies)])
    }
    if (principal.sessionState !== undefined) {
      headers.push(['x-auth-session-state', jsonHeaderValue(principal.sessionState)])
    }
  }
  if (userId !== null) headers.push([USER_ID_HEADER, encodeIdHeaderValue(userId)])
  return headers.length === 0 ? NONE : Object.freeze(headers)
}

function claimsReserved(value: string | string[] | undefined): boolean {
  if (value === undefined) return false
  for (const item of Array.isArray(value) ? value : [value]) {
    if (isReservedPrincipal(item.trim())) return true
    // Node joins repeated fields with ", "; the upstream may read any one of them.
    if (item.includes(',') && item.split(',').some((part) => isReservedPrincipal(part.trim())))
      return true
  }
  return false
}

/**
 * For callers without a user id (anonymous, security key) the client's `X-User-ID` is passed on,
 * as AgentOS honours it, unless it claims a reserved principal (in any spelling of the name).
 */
export function refuseReservedUserIdHeader(headers: IncomingHttpHeaders): void {
  for (const name in headers) {
    if (
      name !== USER_ID_HEADER &&
      !(name.includes('_') && normalizeHeaderName(name) === USER_ID_HEADER)
    ) {
      continue
    }
    if (claimsReserved(headers[name])) {
      throw new GatewayError(
        'ACCESS_DENIED',
        'Client-supplied user_id may not claim a reserved principal',
        {
          reason: 'identity.reserved_user_id',
        },
      )
    }
  }
}
