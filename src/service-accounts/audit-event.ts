import type { PrincipalKind } from '../principal.js'

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
