import { BoundedCache } from '../bounded-cache.js'
import type { Principal } from '../principal.js'
import type { ServiceAccountRecord } from './store.js'

// Bounded: scope lists come from the store, where any account may hold its own.
const MAX_SCOPE_LISTS = 10_000

/**
 * Builds the principals of verified tokens (AUTH-1). Accounts share a handful of scope
 * lists (the defaults, a few custom sets): each principal refers to one shared frozen copy
 * instead of holding its own array and strings. The table belongs to this instance (the
 * verifier's), never to the process.
 */
export class ServicePrincipals {
  readonly #scopeLists = new BoundedCache<string, readonly string[]>({ max: MAX_SCOPE_LISTS })

  /** The principal of a verified token: scoped, always under authorization. */
  of(record: ServiceAccountRecord, credentialHash: string): ServiceAccountPrincipal {
    return Object.freeze({
      kind: 'service_account',
      authenticated: true,
      userId: `sa:${record.name}`,
      sessionId: null,
      scopes: this.#intern(record.scopes),
      // Token scopes are enforced in every mode, open instances included (AUTH-8).
      authorizationEnabled: true,
      serviceAccount: Object.freeze({ id: record.id, name: record.name }),
      expiresAt: record.expiresAt,
      credentialHash,
    })
  }

  #intern(scopes: readonly string[]): readonly string[] {
    const key = JSON.stringify(scopes)
    return this.#scopeLists.get(key) ?? this.#scopeLists.remember(key, Object.freeze([...scopes]))
  }
}

/** A verified service-account token's principal: it names its account and carries its expiry. */
export type ServiceAccountPrincipal = Principal & {
  readonly serviceAccount: { readonly id: string; readonly name: string }
}

/** Expired iff it has an expiry and that moment has come (TOKEN-1: `expires_at <= now`). */
export function isExpired(expiresAt: number | null, nowMs: number): boolean {
  return expiresAt !== null && expiresAt * 1000 <= nowMs
}
