import type {
  AccountUse,
  AuditDraft,
  AuditEvent,
  EventPage,
  EventQuery,
  NewAuditEvent,
} from './audit-event.js'
import type { PruneDraft } from './prune-event.js'

/** An account as minted; times are integer epoch seconds. */
export interface NewServiceAccount {
  /** uuid v4 string. */
  readonly id: string
  readonly name: string
  /** The owner: the minting principal's user id, null for the security key. */
  readonly userId: string | null
  /** SHA-256 hex of the plaintext; the plaintext is never stored. */
  readonly tokenHash: string
  readonly tokenPrefix: string
  /** Raw scope strings, stored exactly as given (order and duplicates kept). */
  readonly scopes: readonly string[]
  readonly createdAt: number
  /** null: never expires. */
  readonly expiresAt: number | null
  readonly createdBy: string | null
}

/** A stored account (TOKEN-1). Only `lastUsedAt`, `lastUsedFrom` and `revokedAt` ever change. */
export interface ServiceAccountRecord extends NewServiceAccount {
  readonly lastUsedAt: number | null
  /** The client address of the use that last wrote `lastUsedAt`. */
  readonly lastUsedFrom: string | null
  readonly revokedAt: number | null
}

export const SORTABLE_COLUMNS = ['created_at', 'name', 'last_used_at', 'expires_at'] as const
export type SortColumn = (typeof SORTABLE_COLUMNS)[number]

/**
 * Ordering is PostgreSQL's: ascending puts nulls last, descending first; ties are broken by id in
 * the same direction. An unlisted `sortBy` means `created_at` and any `sortOrder` other than `asc`
 * means descending, as AgentOS does.
 */
export interface ListQuery {
  readonly limit: number
  readonly offset: number
  readonly sortBy: SortColumn
  readonly sortOrder: 'asc' | 'desc'
  readonly includeRevoked: boolean
  /**
   * Only the accounts of this owner plus the workspace-level ones (`user_id` null), as AgentOS
   * 3.0 lists them to a non-admin (SA-6); a null `userId` leaves the workspace-level ones only.
   * Absent: every account.
   */
  readonly visibleTo?: { readonly userId: string | null }
}

export interface ListResult {
  readonly rows: readonly ServiceAccountRecord[]
  /** Accounts matching the filter, regardless of paging. */
  readonly total: number
}

export type RevokeOutcome = 'revoked' | 'already_revoked' | 'not_found'

export interface RevocationEvent {
  readonly id: string
  readonly tokenHash: string
}

export type RevocationListener = (event: RevocationEvent) => void
export type Unsubscribe = () => void

export interface MigrationResult {
  /** Versions this call applied; empty when the schema was already current. */
  readonly applied: readonly string[]
}

/**
 * Where service accounts live. Errors meaning "cannot reach the database / timed out" are thrown
 * as `StoreUnavailableError`; an active-name clash on create as `NameConflictError`.
 */
export interface ServiceAccountStore {
  /** Creates or upgrades the schema; safe when several replicas start at once. */
  migrate(): Promise<MigrationResult>
  /**
   * The unique index on active names decides races: of concurrent same-name creates one wins.
   * Writes the `mint` event (with `audit`'s origin) in the same transaction, and a `rotation`
   * event when an account of the same name was revoked within the rotation window.
   */
  create(account: NewServiceAccount, audit?: AuditDraft): Promise<ServiceAccountRecord>
  findActiveByName(name: string): Promise<ServiceAccountRecord | null>
  findByTokenHash(tokenHash: string): Promise<ServiceAccountRecord | null>
  findById(id: string): Promise<ServiceAccountRecord | null>
  list(query: ListQuery): Promise<ListResult>
  /**
   * One-way: an already revoked account keeps its first `revokedAt`. Writes the `revoke` event
   * (with `audit`'s origin) in the same transaction, only when this call revoked.
   */
  revoke(id: string, nowSeconds: number, audit?: AuditDraft): Promise<RevokeOutcome>
  /**
   * Never moves `lastUsedAt` backwards; `from` (the client address) is written with it, kept when
   * absent. An unknown id is not an error.
   */
  touchLastUsed(id: string, nowSeconds: number, from?: string): Promise<void>
  /**
   * Appends events to the database's hash chain, in order, in one transaction; returns them as
   * stored. Appends from every store on the database (replicas) form one chain. Each of `uses`
   * records its address among the account's known ones and, when the address was not known,
   * appends (after `events`) a `first_use` (the account had never been used) or a
   * `use_from_new_address` event, in the same transaction.
   */
  appendEvents(
    events: readonly NewAuditEvent[],
    uses?: readonly AccountUse[],
  ): Promise<readonly AuditEvent[]>
  /** Events matching the query, newest first, and how many match in all. */
  listEvents(query: EventQuery): Promise<EventPage>
  /** Up to `limit` events of the chain after `seq`, in chain order: for verification. */
  eventsAfter(seq: number, limit: number): Promise<readonly AuditEvent[]>
  /**
   * Retention, one batch: removes the chain's oldest events that occurred before `cutoff` (epoch
   * milliseconds), up to the first event that did not and at most `limit` of them, and appends a
   * `prune` event recording the removal, in one transaction; returns it, or null when no event was
   * due (nothing written). The chain verifies after every batch. Concurrent calls on one database
   * (replicas) never remove an event twice.
   */
  pruneEvents(cutoff: number, draft: PruneDraft, limit: number): Promise<AuditEvent | null>
  /**
   * Revocations made by any replica on the same database. Resolves once the subscription is
   * in place (or its first attempt failed and retries run in the background).
   */
  onRevocation(listener: RevocationListener): Promise<Unsubscribe>
  /**
   * Called when the notification channel came back after an interruption: revocations made
   * meanwhile may have been missed, so caches should be dropped.
   */
  onNotificationGap(listener: () => void): Unsubscribe
  ping(): Promise<void>
  /** Idempotent. */
  close(): Promise<void>
}
