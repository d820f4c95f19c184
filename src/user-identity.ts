import { GatewayError } from './errors.js'
import { isAdmin, type Principal } from './principal.js'

export const MISSING_USER_IDENTITY = 'Authenticated request is missing a user identity'

/**
 * AgentOS 3.0 under user isolation denies an authenticated caller it cannot scope to a user (a
 * JWT without `sub`, or with an empty one: `not user_id`) where 2.9 left it unscoped
 * (`get_scoped_user_id`). Admins and the security key's unscoped root are never scoped, so never
 * refused; anonymous callers have no identity to miss.
 */
export function missesUserIdentity(
  principal: Principal,
  adminScope: string,
  userIsolation: boolean,
): boolean {
  return (
    userIsolation &&
    principal.authenticated &&
    principal.scopes !== null &&
    (principal.userId === null || principal.userId === '') &&
    !isAdmin(principal, adminScope)
  )
}

/** AgentOS's 403 for a caller `missesUserIdentity` refuses. */
export function missingUserIdentity(): GatewayError {
  return new GatewayError('ACCESS_DENIED', MISSING_USER_IDENTITY, {
    reason: 'identity.missing_user',
  })
}
