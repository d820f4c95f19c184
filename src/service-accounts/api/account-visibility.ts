import { GatewayError } from '../../errors.js'
import { agentosCatalogue, type AgentOsLine } from '../../policy/catalogue/index.js'
import { missesUserIdentity, missingUserIdentity } from '../../user-identity.js'
import { isAdmin, type Principal } from '../../principal.js'
import type { ListQuery, ServiceAccountRecord } from '../store.js'

export interface AccountVisibilitySettings {
  readonly line: AgentOsLine
  readonly adminScope: string
  readonly userIsolation: boolean
}

/** The accounts a caller may list and revoke: an owner's plus the workspace-level ones. */
export type VisibleAccounts = NonNullable<ListQuery['visibleTo']>

/**
 * Which accounts a caller may list and revoke (SA-6): in 2.9 every account (SA-2, SA-3); on a
 * line whose catalogue says the API is owner-scoped (3.0) every account for an admin or the
 * security key, its own and the workspace-level ones for anyone else, and a refusal for a caller
 * without a user id under user isolation. Undefined: every account.
 */
export function visibleAccounts(
  principal: Principal,
  settings: AccountVisibilitySettings,
): VisibleAccounts | undefined {
  if (!agentosCatalogue(settings.line).serviceAccountsOwnerScoped) return undefined
  if (principal.scopes === null || isAdmin(principal, settings.adminScope)) return undefined
  if (missesUserIdentity(principal, settings.adminScope, settings.userIsolation)) {
    throw missingUserIdentity()
  }
  return { userId: principal.userId }
}

/**
 * SA-6: another owner's account is answered as if it did not exist (no existence leak); a
 * workspace-level one is refused outright.
 */
export function assertMayRevoke(
  record: ServiceAccountRecord,
  visible: VisibleAccounts | undefined,
): void {
  if (visible === undefined) return
  if (record.userId === null) {
    throw new GatewayError('ACCESS_DENIED', 'Cannot revoke a workspace-level service account', {
      reason: 'service_accounts.workspace_level',
    })
  }
  if (record.userId !== visible.userId) throw accountNotFound(record.id)
}

/**
 * SA-6 for reading one account (its events): the accounts the caller's listing shows, its own and
 * the workspace-level ones; another owner's is answered as if it did not exist.
 */
export function assertMayRead(
  record: ServiceAccountRecord,
  visible: VisibleAccounts | undefined,
): void {
  if (visible === undefined || record.userId === null) return
  if (record.userId !== visible.userId) throw accountNotFound(record.id)
}

export function accountNotFound(id: string): GatewayError {
  return new GatewayError('NOT_FOUND', `Service account '${id}' not found`, {
    reason: 'service_accounts.not_found',
  })
}
