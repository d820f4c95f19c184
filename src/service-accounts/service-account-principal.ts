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
    return new AccountPrincipal(record, this.#intern(record.scopes), credentialHash)
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

const USER_ID_PREFIX = 'sa:'

/**
 * What the cache keeps per account, so a few fields only: the account's id, its user id (the
 * name is read from it), its interned scope list, its expiry and the token's digest. What every
 * service-account principal says alike is on the prototype, and the principal is its own
 * `serviceAccount` view (it has `id` and `name`) instead of holding another object.
 */
class AccountPrincipal implements ServiceAccountPrincipal {
  declare readonly kind: 'service_account'
  declare readonly authenticated: true
  declare readonly sessionId: null
  // Token scopes are enforced in every mode, open instances included (AUTH-8).
  declare readonly authorizationEnabled: true
  readonly id: string
  readonly userId: string
  readonly scopes: readonly string[]
  readonly expiresAt: number | null
  readonly credentialHash: string

  constructor(record: ServiceAccountRecord, scopes: readonly string[], credentialHash: string) {
    this.id = record.id
    // Flat: a template literal would keep a concatenation node beside the name, and a flat copy
    // once it is read.
    this.userId = [USER_ID_PREFIX, record.name].join('')
    this.scopes = scopes
    this.expiresAt = record.expiresAt
    this.credentialHash = credentialHash
    Object.freeze(this)
  }

  /**
   * Read from the user id when asked (building a plan's identity headers, the audit): kept, even
   * as a slice sharing its characters, it cost every cached account 40 bytes.
   */
  get name(): string {
    return this.userId.slice(USER_ID_PREFIX.length)
  }

  get serviceAccount(): { readonly id: string; readonly name: string } {
    return this
  }
}

Object.defineProperties(AccountPrincipal.prototype, {
  kind: { value: 'service_account' },
  authenticated: { value: true },
  sessionId: { value: null },
  authorizationEnabled: { value: true },
})

/** Expired iff it has an expiry and that moment has come (TOKEN-1: `expires_at <= now`). */
export function isExpired(expiresAt: number | null, nowMs: number): boolean {
  return expiresAt !== null && expiresAt * 1000 <= nowMs
}
