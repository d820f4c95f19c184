/** How a request authenticated. `anonymous` covers open mode and excluded routes. */
export type PrincipalKind = 'jwt' | 'service_account' | 'scheduler' | 'security_key' | 'anonymous'

/**
 * The verified identity of a request: AgentOS's `request.state` (AUTH-1), built by a
 * verifier and never mutated afterwards. A cached principal is shared between requests, so every
 * field is read-only.
 */
export interface Principal {
  readonly kind: PrincipalKind
  /** False for anonymous callers and for undecodable tokens under `validate: false`. */
  readonly authenticated: boolean
  readonly userId: string | null
  readonly sessionId: string | null
  /** Granted scopes; null for an unscoped root (the security key) and for anonymous callers. */
  readonly scopes: readonly string[] | null
  /** Whether route scopes and route gates apply (`request.state.authorization_enabled`). */
  readonly authorizationEnabled: boolean
  /** JWT claims (verified unless `validate: false`). */
  readonly claims?: Readonly<Record<string, unknown>>
  /** Selected claims passed on as `dependencies` / `session_state`. */
  readonly dependencies?: Readonly<Record<string, unknown>>
  readonly sessionState?: Readonly<Record<string, unknown>>
  readonly serviceAccount?: { readonly id: string; readonly name: string }
  /** Epoch seconds after which the credential is no longer valid (JWT exp, account expiry); null: never. */
  readonly expiresAt: number | null
  /** The credential's SHA-256 (`credentialDigest`), for revocation of long-lived connections; never the credential. */
  readonly credentialHash?: string
}

export const ANONYMOUS: Principal = Object.freeze({
  kind: 'anonymous',
  authenticated: false,
  userId: null,
  sessionId: null,
  scopes: null,
  authorizationEnabled: false,
  expiresAt: null,
})

/**
 * What an open AgentOS is told instead of a principal it reserves, on the interface routes that
 * refuse a client-supplied reserved id (A2A, AG-UI): `sa:ci` runs there as `__portcullis__:sa:ci`
 * (docs/agentos-compatibility.md A2A-2). Portcullis reserves the prefix, so no JWT subject and no
 * client-supplied user id can claim it.
 */
export const INTERFACE_ALIAS_PREFIX = '__portcullis__:'

/** AgentOS's reserved principals: service accounts, OAuth clients, the scheduler (JWT-10). */
function isAgentOsReserved(userId: string): boolean {
  return userId.startsWith('sa:') || userId.startsWith('__oauth__:') || userId === '__scheduler__'
}

/** Identity prefixes no JWT or client-supplied user id may claim: AgentOS's and the alias's. */
export function isReservedPrincipal(userId: unknown): boolean {
  return (
    typeof userId === 'string' &&
    (isAgentOsReserved(userId) || userId.startsWith(INTERFACE_ALIAS_PREFIX))
  )
}

/** The user id an open AgentOS accepts from this principal on A2A and AG-UI routes (A2A-2). */
export function interfaceUserId(principal: Principal): string | null {
  const userId = principal.userId
  return userId !== null && isAgentOsReserved(userId)
    ? `${INTERFACE_ALIAS_PREFIX}${userId}`
    : userId
}

/** Admin is exact membership of the configured admin scope (RBAC-1). */
export function isAdmin(principal: Principal, adminScope: string): boolean {
  return principal.scopes?.includes(adminScope) === true
}

/**
 * The user id to force onto data access, or null for "unscoped" (ISO-1): admins are never
 * scoped; service accounts always are; JWT callers only under `user_isolation`.
 */
export function scopedUserId(
  principal: Principal,
  adminScope: string,
  userIsolation: boolean,
): string | null {
  if (isAdmin(principal, adminScope)) return null
  const userId = principal.userId
  if (userId === null) return null
  if (userId.startsWith('sa:')) return userId
  if (!userIsolation) return null
  return userId
}
