import type { Config } from '../../config/schema.js'
import { isReservedPrincipal, type Principal } from '../../principal.js'
import { deepFreeze } from '../../deep-freeze.js'
import { audienceMismatch, audienceMissing, reservedSubject } from './jwt-errors.js'
import { claimSeconds } from './registered-claims.js'

export type ClaimSettings = Pick<
  Config['auth'],
  | 'scopes_claim'
  | 'user_id_claim'
  | 'session_id_claim'
  | 'dependencies_claims'
  | 'session_state_claims'
>

export type Payload = Readonly<Record<string, unknown>>

/** A claim the payload itself holds; never one inherited from Object.prototype (`constructor`). */
export function claim(payload: Payload, name: string): unknown {
  return Object.hasOwn(payload, name) ? payload[name] : undefined
}

/**
 * JWT-10: a list is the scopes (its string items), a string is ONE scope (not split on
 * spaces, so `"agents:read teams:read"` grants neither), anything else is no scopes.
 */
export function scopesFromClaim(value: unknown): readonly string[] {
  if (typeof value === 'string') return Object.freeze([value])
  if (!Array.isArray(value)) return NO_SCOPES
  // A list of strings alone (the usual claim) is the scopes as it stands once frozen with the
  // claims: no copy per token.
  if (value.every(isString)) {
    return Object.isFrozen(value) ? value : Object.freeze(value.slice())
  }
  return Object.freeze(value.filter(isString))
}

const NO_SCOPES: readonly string[] = Object.freeze([])

function isString(item: unknown): item is string {
  return typeof item === 'string'
}

/** A user or session id: a string, or a finite number as its decimal text; else none. */
export function identityFromClaim(value: unknown): string | null {
  if (typeof value === 'string') return value
  if (typeof value === 'number' && Number.isFinite(value)) return String(value)
  return null
}

/** `sa:…`, `__oauth__:…` and `__scheduler__` belong to other credential kinds (JWT-10). */
export function rejectReservedSubject(payload: Payload, userIdClaim: string): void {
  if (isReservedPrincipal(claim(payload, userIdClaim))) throw reservedSubject()
}

/**
 * AgentOS's manual audience check (JWT-12): the claim (string or list) must share an
 * element with the expected audiences, by exact string equality. An absent or null claim is
 * "missing"; any other shape simply does not match.
 */
export function checkAudience(
  payload: Payload,
  audienceClaim: string,
  expected: readonly string[],
): void {
  const value = claim(payload, audienceClaim)
  if (value === undefined || value === null) throw audienceMissing(audienceClaim)
  const presented: readonly unknown[] = Array.isArray(value) ? value : [value]
  const matches = presented.some((item) => typeof item === 'string' && expected.includes(item))
  if (!matches) throw audienceMismatch()
}

/**
 * The principal of a decoded token (AUTH-1); the payload is frozen, as the principal is
 * shared. An unverified token (`validate: false`) has no expiry: its `exp` was never enforced.
 */
export function principalFromClaims(
  payload: Payload,
  settings: ClaimSettings,
  options: { credentialHash: string; authorizationEnabled: boolean; verified: boolean },
): Principal {
  const claims = deepFreeze(payload)
  const exp = claimSeconds(claim(claims, 'exp'))
  const dependencies = pickClaims(claims, settings.dependencies_claims)
  const sessionState = pickClaims(claims, settings.session_state_claims)
  return Object.freeze({
    kind: 'jwt',
    authenticated: true,
    userId: identityFromClaim(claim(claims, settings.user_id_claim)),
    sessionId: identityFromClaim(claim(claims, settings.session_id_claim)),
    scopes: scopesFromClaim(claim(claims, settings.scopes_claim)),
    authorizationEnabled: options.authorizationEnabled,
    claims,
    ...(dependencies === undefined ? {} : { dependencies }),
    ...(sessionState === undefined ? {} : { sessionState }),
    expiresAt: options.verified && exp !== undefined ? exp : null,
    credentialHash: options.credentialHash,
  })
}

/** `validate: false` and the token does not even decode: the request goes on unauthenticated (JWT-11). */
export function undecodablePrincipal(
  credentialHash: string,
  authorizationEnabled: boolean,
): Principal {
  return Object.freeze({
    kind: 'jwt',
    authenticated: false,
    userId: null,
    sessionId: null,
    scopes: Object.freeze([]),
    authorizationEnabled,
    expiresAt: null,
    credentialHash,
  })
}

function pickClaims(payload: Payload, names: readonly string[]): Payload | undefined {
  if (names.length === 0) return undefined
  const picked = names.filter((name) => Object.hasOwn(payload, name))
  if (picked.length === 0) return undefined
  return Object.freeze(Object.fromEntries(picked.map((name) => [name, payload[name]])))
}
