import { GatewayError } from './errors.js'
import { isAdmin, type Principal } from './principal.js'

export const MISSING_USER_IDENTITY = 'Authenticated request is missing a user identity'

/**
 * AgentOS 3.0 under user isolation denies an authenticated caller it cannot scope to a user
 * (a JWT without `sub`) where 2.9 left it unscoped (`get_scoped_user_id`; SA-6 for the
 * `/service-accounts` API). Admins and the security key's unscoped root are never scoped, so
 * never refused; anonymous callers have no identity to miss.
 */
export function assertUserIdentity(
  principal: Principal,
  adminScope: string,
  userIsolation: boolean,
): void {
  if (!userIsolation || !principal.authenticated || principal.scopes === null) return
  if (isAdmin(principal, adminScope)) return
  if (principal.userId !== null && principal.userId !== '') return
  throw new GatewayError('ACCESS_DENIED', MISSING_USER_IDENTITY, {
    reason: 'identity.missing_user',
  })
}
