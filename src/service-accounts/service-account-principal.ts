import { BoundedMemo } from '../bounded-memo.js'
import type { Principal } from '../auth/principal.js'
import type { ServiceAccountRecord } from './store.js'

const scopeLists = new BoundedMemo<readonly string[]>(10_000)

/**
 * Accounts share a handful of scope lists (the defaults, a few custom sets): each cached principal
 * refers to one shared frozen copy instead of holding its own array and strings.
 */
function internScopes(scopes: readonly string[]): readonly string[] {
  const key = JSON.stringify(scopes)
  return scopeLists.lookup(key) ?? scopeLists.remember(key, Object.freeze([...scopes]))
}

/** A verified service-account token's principal: it names its account and carries its expiry. */
export type ServiceAccountPrincipal = Principal & {
  readonly serviceAccount: { readonly id: string; readonly name: string }
}

/** The principal of a verified token (reference 5.7): scoped, always under authorization. */
export function servicePrincipal(
  record: ServiceAccountRecord,
  credentialHash: string,
): ServiceAccountPrincipal {
  return Object.freeze({
    kind: 'service_account',
    authenticated: true,
    userId: `sa:${record.name}`,
    sessionId: null,
    scopes: internScopes(record.scopes),
    // Token scopes are enforced in every mode, open instances included (reference 6.11).
    authorizationEnabled: true,
    serviceAccount: Object.freeze({ id: record.id, name: record.name }),
    expiresAt: record.expiresAt,
    credentialHash,
  })
}

/** Expired iff it has an expiry and that moment has come (reference 4: `expires_at <= now`). */
export function isExpired(expiresAt: number | null, nowMs: number): boolean {
  return expiresAt !== null && expiresAt * 1000 <= nowMs
}
