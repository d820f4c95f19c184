import type { PrincipalKind } from '../principal.js'
import type { ClientClass } from './client-class.js'

/** Every kind of audit event, the closed list metrics and filters use. */
export const AUDIT_EVENT_TYPES = [
  'mint',
  'revoke',
  'first_use',
  'use_from_new_address',
  'refused',
  'throttled',
  'rotation',
  'prune',
] as const
export type AuditEventType = (typeof AUDIT_EVENT_TYPES)[number]

/**
 * An event's free-form part: JSON made of strings, safe integers, booleans, null, arrays and
 * objects (no fractions, so that the database's JSON gives back exactly what was hashed). Never a
 * token, a token's hash or any other secret.
 */
export type AuditValue =
  string | number | boolean | null | readonly AuditValue[] | { readonly [key: string]: AuditValue }
export type AuditDetails = { readonly [key: string]: AuditValue }

/** Who caused an event and from where, as the request that caused it knows. */
export interface AuditOrigin {
  /** How the actor authenticated; null when no request caused the event (retention). */
  readonly actorKind: PrincipalKind | null
  /** The actor's user id (`sa:<name>` for a service account); null for the security key. */
  readonly actor: string | null
  /** The trusted-proxy answer for the client, as in the access log. */
  readonly clientAddress: string | null
  /** The request id of the access log. */
  readonly requestId: string | null
}

/** An event to be appended: the store gives it its place in the chain. */
export interface NewAuditEvent extends AuditOrigin {
  /** uuid v4 string. */
  readonly id: string
  /** Epoch milliseconds. */
  readonly occurredAt: number
  readonly type: AuditEventType
  readonly accountId: string | null
  readonly accountName: string | null
  readonly details: AuditDetails
}

/** A stored event: `seq` orders the chain (1, 2, …); `hash` covers every other field. */
export interface AuditEvent extends NewAuditEvent {
  readonly seq: number
  /** The previous event's `hash`; GENESIS_HASH for the first event of a database. */
  readonly prevHash: string
  readonly hash: string
}

/** What a mint or revoke adds to the event it writes with the change. */
export interface AuditDraft extends AuditOrigin {
  readonly id: string
  readonly occurredAt: number
  readonly details: AuditDetails
}

/**
 * A successful use of an account's token from a client address, as the verifier saw it (at most
 * once per interval per account and address in a process). The store records the address and
 * turns a use from an address the account was not known at into a `first_use` or
 * `use_from_new_address` event.
 */
export interface AccountUse {
  readonly kind: 'use'
  readonly accountId: string
  readonly accountName: string
  /** The trusted-proxy answer for the client, as in the access log. */
  readonly clientAddress: string
  readonly requestId: string
  /** Epoch milliseconds. */
  readonly occurredAt: number
  readonly clientClass: ClientClass
}

/** How a store records what the audit trail derives from changes and uses. */
export interface StoreAuditOptions {
  /** A mint of a name revoked at most this long before also writes a `rotation` event; 0: never. */
  readonly rotationWindowSeconds: number
  /** Addresses remembered per account (least recently seen forgotten first). */
  readonly addressesPerAccount: number
  /** Told every event once it is committed: the log line and the counters. */
  readonly appended?: (events: readonly AuditEvent[]) => void
}

export const DEFAULT_STORE_AUDIT: StoreAuditOptions = {
  rotationWindowSeconds: 3_600,
  addressesPerAccount: 20,
}

export interface EventQuery {
  readonly limit: number
  readonly offset: number
  readonly types?: readonly AuditEventType[]
  readonly accountId?: string
  /** Events of every account that bore this name (a name can be minted again after a revoke). */
  readonly accountName?: string
  /** Epoch milliseconds, inclusive. */
  readonly since?: number
  /** Epoch milliseconds, exclusive. */
  readonly until?: number
  readonly actor?: string
  /**
   * Only events of this owner's accounts and the workspace-level ones (as the listing, SA-6),
   * plus events with no account that this owner (never a null one) caused. Absent: every event.
   */
  readonly visibleTo?: { readonly userId: string | null }
}

export interface EventPage {
  /** Newest first (descending `seq`). */
  readonly rows: readonly AuditEvent[]
  readonly total: number
}
