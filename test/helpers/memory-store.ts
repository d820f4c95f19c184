import { chainEvents } from '../../src/service-accounts/audit-chain.js'
import {
  DEFAULT_STORE_AUDIT,
  type AccountUse,
  type AuditDraft,
  type AuditEvent,
  type EventPage,
  type EventQuery,
  type NewAuditEvent,
  type StoreAuditOptions,
} from '../../src/service-accounts/audit-event.js'
import {
  addressEvent,
  isFirstUse,
  rotationEvent,
  rotationSince,
} from '../../src/service-accounts/derived-events.js'
import { mintEvent, revokeEvent } from '../../src/service-accounts/lifecycle-events.js'
import { MIGRATIONS } from '../../src/service-accounts/migrations/index.js'
import { pruneEvent, type PruneDraft } from '../../src/service-accounts/prune-event.js'
import {
  NameConflictError,
  StoreUnavailableError,
} from '../../src/service-accounts/store-errors.js'
import type {
  ListQuery,
  ListResult,
  MigrationResult,
  NewServiceAccount,
  RevocationEvent,
  RevocationListener,
  RevokeOutcome,
  ServiceAccountRecord,
  ServiceAccountStore,
  SortColumn,
  Unsubscribe,
} from '../../src/service-accounts/store.js'

type SortField = 'createdAt' | 'name' | 'lastUsedAt' | 'expiresAt'

const SORT_FIELDS: Record<SortColumn, SortField> = {
  created_at: 'createdAt',
  name: 'name',
  last_used_at: 'lastUsedAt',
  expires_at: 'expiresAt',
}

/**
 * The store contract in memory, for unit tests: no sockets. `available = false` makes every call
 * fail with StoreUnavailableError; `calls` counts operations; `announce` plays a revocation made
 * by another replica.
 */
export class MemoryServiceAccountStore implements ServiceAccountStore {
  available = true
  readonly calls = { findByTokenHash: 0, touchLastUsed: 0 }
  readonly #accounts = new Map<string, ServiceAccountRecord>()
  readonly #listeners = new Set<RevocationListener>()
  readonly #gapListeners = new Set<() => void>()
  readonly #events: AuditEvent[] = []
  /** Account id → address → last seen (epoch ms), in the order last seen. */
  readonly #addresses = new Map<string, Map<string, number>>()
  readonly #audit: StoreAuditOptions
  #migrated = false
  #closed = false

  constructor(audit: StoreAuditOptions = DEFAULT_STORE_AUDIT) {
    this.#audit = audit
  }

  async migrate(): Promise<MigrationResult> {
    this.#check()
    if (this.#migrated) return { applied: [] }
    this.#migrated = true
    return { applied: MIGRATIONS.map((migration) => migration.version) }
  }

  async create(account: NewServiceAccount, audit?: AuditDraft): Promise<ServiceAccountRecord> {
    this.#check()
    const all = [...this.#accounts.values()]
    if (all.some((other) => other.name === account.name && other.revokedAt === null)) {
      throw new NameConflictError(account.name)
    }
    if (all.some((other) => other.tokenHash === account.tokenHash || other.id === account.id)) {
      throw new Error('duplicate key')
    }
    const record = {
      ...account,
      scopes: [...account.scopes],
      lastUsedAt: null,
      lastUsedFrom: null,
      revokedAt: null,
    }
    const mint = mintEvent(account, audit)
    const since = rotationSince(account.createdAt, this.#audit.rotationWindowSeconds)
    const rotated = all
      .filter(
        (other) =>
          other.name === account.name &&
          since !== null &&
          other.revokedAt !== null &&
          other.revokedAt >= since,
      )
      .sort((a, b) => (b.revokedAt ?? 0) - (a.revokedAt ?? 0))[0]
    this.#accounts.set(account.id, record)
    const revokeEvent = this.#events.findLast(
      (event) => event.type === 'revoke' && event.accountId === rotated?.id,
    )
    this.#append(
      rotated === undefined
        ? [mint]
        : [
            mint,
            rotationEvent(mint, {
              accountId: rotated.id,
              revokedAt: rotated.revokedAt ?? 0,
              revokeEventId: revokeEvent?.id ?? null,
            }),
          ],
    )
    return { ...record }
  }

  async findActiveByName(name: string): Promise<ServiceAccountRecord | null> {
    return this.#find((account) => account.name === name && account.revokedAt === null)
  }

  async findByTokenHash(tokenHash: string): Promise<ServiceAccountRecord | null> {
    this.calls.findByTokenHash += 1
    return this.#find((account) => account.tokenHash === tokenHash)
  }

  async findById(id: string): Promise<ServiceAccountRecord | null> {
    return this.#find((account) => account.id === id)
  }

  async list(query: ListQuery): Promise<ListResult> {
    this.#check()
    const field = Object.hasOwn(SORT_FIELDS, query.sortBy) ? SORT_FIELDS[query.sortBy] : 'createdAt'
    const direction = query.sortOrder === 'asc' ? 1 : -1
    const rows = [...this.#accounts.values()]
      .filter((account) => query.includeRevoked || account.revokedAt === null)
      .filter(
        (account) =>
          query.visibleTo === undefined ||
          account.userId === null ||
          account.userId === query.visibleTo.userId,
      )
      .sort((a, b) => direction * (compare(a[field], b[field]) || compare(a.id, b.id)))
    return { rows: rows.slice(query.offset, query.offset + query.limit), total: rows.length }
  }

  async revoke(id: string, nowSeconds: number, audit?: AuditDraft): Promise<RevokeOutcome> {
    this.#check()
    const account = this.#accounts.get(id)
    if (account === undefined) return 'not_found'
    if (account.revokedAt !== null) return 'already_revoked'
    this.#accounts.set(id, { ...account, revokedAt: nowSeconds })
    this.#append([revokeEvent(account, nowSeconds, audit)])
    this.announce({ id, tokenHash: account.tokenHash })
    return 'revoked'
  }

  async touchLastUsed(id: string, nowSeconds: number, from?: string): Promise<void> {
    this.#check()
    this.calls.touchLastUsed += 1
    const account = this.#accounts.get(id)
    if (account !== undefined && (account.lastUsedAt ?? -Infinity) < nowSeconds) {
      const lastUsedFrom = from ?? account.lastUsedFrom
      this.#accounts.set(id, { ...account, lastUsedAt: nowSeconds, lastUsedFrom })
    }
  }

  async appendEvents(
    events: readonly NewAuditEvent[],
    uses: readonly AccountUse[] = [],
  ): Promise<readonly AuditEvent[]> {
    this.#check()
    return this.#append([...events, ...uses.flatMap((use) => this.#addressEvents(use))])
  }

  async listEvents(query: EventQuery): Promise<EventPage> {
    this.#check()
    const visible = (event: AuditEvent): boolean => {
      const owner = query.visibleTo?.userId
      if (owner === undefined) return true
      if (event.accountId === null) return owner !== null && event.actor === owner
      const account = this.#accounts.get(event.accountId)
      return account !== undefined && (account.userId === null || account.userId === owner)
    }
    const rows = this.#events
      .filter(
        (event) =>
          (query.types === undefined || query.types.includes(event.type)) &&
          (query.accountId === undefined || event.accountId === query.accountId) &&
          (query.accountName === undefined || event.accountName === query.accountName) &&
          (query.since === undefined || event.occurredAt >= query.since) &&
          (query.until === undefined || event.occurredAt < query.until) &&
          (query.actor === undefined || event.actor === query.actor) &&
          visible(event),
      )
      .reverse()
    return { rows: rows.slice(query.offset, query.offset + query.limit), total: rows.length }
  }

  async eventsAfter(seq: number, limit: number): Promise<readonly AuditEvent[]> {
    this.#check()
    return this.#events.filter((event) => event.seq > seq).slice(0, limit)
  }

  async pruneEvents(cutoff: number, draft: PruneDraft, limit: number): Promise<AuditEvent | null> {
    this.#check()
    const head = this.#events.at(-1)
    const boundary = this.#events.findIndex((event) => event.occurredAt >= cutoff)
    const due = boundary === -1 ? this.#events.length : boundary
    const removed = this.#events.splice(0, Math.min(due, limit))
    const [first, last] = [removed[0], removed.at(-1)]
    if (first === undefined || last === undefined || head === undefined) return null
    const removal = {
      removed: removed.length,
      firstSeq: first.seq,
      lastSeq: last.seq,
      lastHash: last.hash,
      cutoff,
    }
    const [event] = chainEvents(head, [pruneEvent(draft, removal)])
    if (event === undefined) return null
    this.#events.push(event)
    return event
  }

  async onRevocation(listener: RevocationListener): Promise<Unsubscribe> {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  onNotificationGap(listener: () => void): Unsubscribe {
    this.#gapListeners.add(listener)
    return () => this.#gapListeners.delete(listener)
  }

  async ping(): Promise<void> {
    this.#check()
  }

  async close(): Promise<void> {
    this.#closed = true
  }

  /** Delivers a revocation notification, as if another replica had revoked. */
  announce(event: RevocationEvent): void {
    for (const listener of this.#listeners) listener(event)
  }

  /** Signals that notifications may have been lost. */
  signalGap(): void {
    for (const listener of this.#gapListeners) listener()
  }

  #addressEvents(use: AccountUse): NewAuditEvent[] {
    const known = this.#addresses.get(use.accountId) ?? new Map<string, number>()
    this.#addresses.set(use.accountId, known)
    const seen = known.get(use.clientAddress)
    if (seen !== undefined) {
      if (seen < use.occurredAt) {
        known.delete(use.clientAddress)
        known.set(use.clientAddress, use.occurredAt)
      }
      return []
    }
    const first = isFirstUse(known.size, this.#accounts.get(use.accountId)?.lastUsedAt ?? null, use)
    known.set(use.clientAddress, use.occurredAt)
    const oldest = [...known].sort(([, a], [, b]) => a - b)
    for (const [address] of oldest.slice(0, known.size - this.#audit.addressesPerAccount))
      known.delete(address)
    return [addressEvent(use, first)]
  }

  #append(events: readonly NewAuditEvent[]): AuditEvent[] {
    const chained = chainEvents(this.#events.at(-1) ?? null, events)
    this.#events.push(...chained)
    return chained
  }

  #find(match: (account: ServiceAccountRecord) => boolean): ServiceAccountRecord | null {
    this.#check()
    const found = [...this.#accounts.values()].find(match)
    return found === undefined ? null : { ...found, scopes: [...found.scopes] }
  }

  #check(): void {
    if (this.#closed) throw new StoreUnavailableError('memory store is closed')
    if (!this.available) throw new StoreUnavailableError('memory store is down')
  }
}

/** PostgreSQL's order: nulls are larger than any value (last ascending, first descending). */
function compare(a: string | number | null, b: string | number | null): number {
  if (a === b) return 0
  if (a === null) return 1
  if (b === null) return -1
  return a < b ? -1 : 1
}
