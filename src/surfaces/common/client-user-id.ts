import { interfaceUserId, isReservedPrincipal, type Principal } from '../../principal.js'
import { GatewayError } from '../../errors.js'
import type { JsonObject } from './json.js'

export const RESERVED_USER_ID_DENIAL = 'Client-supplied user_id may not claim a reserved principal'

export function reservedUserIdError(): GatewayError {
  return new GatewayError('ACCESS_DENIED', RESERVED_USER_ID_DENIAL, {
    reason: 'surfaces.reserved_user_id',
  })
}

/** A client value naming `sa:…`, `__oauth__:…` or `__scheduler__` (padding ignored). */
export function claimsReservedPrincipal(value: unknown): boolean {
  return (
    typeof value === 'string' && (isReservedPrincipal(value) || isReservedPrincipal(value.trim()))
  )
}

/**
 * A user id the client put in a body, as AgentOS's A2A and AG-UI treat it (ISO-2): a
 * caller with a user id gets theirs written over it (its interface alias for a service account
 * or the scheduler, A2A-2); anyone else keeps it unless it claims a reserved principal (403).
 * `always`: also set when the client sent none. Returns whether the object changed.
 */
export function pinClientUserId(
  holder: JsonObject,
  key: string,
  principal: Principal,
  always: boolean,
): boolean {
  const userId = interfaceUserId(principal)
  if (userId === null) {
    if (claimsReservedPrincipal(holder[key])) throw reservedUserIdError()
    return false
  }
  if (holder[key] === userId || (!always && !(key in holder))) return false
  holder[key] = userId
  return true
}
