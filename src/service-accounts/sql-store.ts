import type { Logger } from '../logger.js'
import { ACCOUNT_COLUMNS, integerColumn, parseAccountRow } from './account-row.js'
import { addressEventsIn, rotatedAccountIn } from './account-addresses-sql.js'
import {
  DEFAULT_STORE_AUDIT,
  type AccountUse,
  type AuditDraft,
  type AuditEvent,
  type EventPage,
  type EventQuery,
  type NewAuditEvent,
  type StoreAuditOptions,
} from './audit-event.js'
import {
  appendEventsIn,
  EVENT_COLUMNS,
  eventListStatements,
  lockChainIn,
  parseEventRow,
  pruneEventsIn,
} from './audit-events-sql.js'
import { rotationEvent, rotationSince } from './derived-events.js'
import { mintEvent, revokeEvent } from './lifecycle-events.js'
import type { PruneDraft } from './prune-event.js'
import { listStatements, type ListStatements } from './list-query.js'
import type { ServiceAccountMetrics, StoreOperation } from './metrics.js'
import { runMigrations } from './migrate.js'
import type { OwnedResource } from '../policy/catalogue/route-facts.js'
import type { RecordedOwner, ResourceOwners } from './resource-owners.js'
import { RevocationFeed, revocationPayload } from './revocation-feed.js'
import { SqlResourceOwners } from './sql-resource-owners.js'
import { single, type SqlClient, type SqlRow } from './sql-client.js'
import { NameConflictError, StoreUnavailableError } from './store-errors.js'
import type {
  ListQuery,
  ListResult,
  MigrationResult,
  NewServiceAccount,
  RevocationListener,
  RevokeOutcome,
  ServiceAccountRecord,
  ServiceAccountStore,
  Unsubscribe,
} from './store.js'

export const REVOCATION_CHANNEL = 'portcullis_service_account_revoked'
const ACTIVE_NAME_INDEX = 'portcullis_service_accounts_uq_active_name'

export interface SqlStoreDeps {
  readonly logger: Logger
  readonly metrics?: ServiceAccountMetrics
  readonly audit?: StoreAuditOptions
}

/**
 * The gateway's store in SQL, the same for PostgreSQL (`pg`) and PGlite: service accounts and
 * the owners of upstream rows (OWN-1), in one database.
 */
export class SqlServiceAccountStore implements ServiceAccountStore, ResourceOwners {
  readonly #client: SqlClient
  readonly #deps: SqlStoreDeps
  readonly #feed: RevocationFeed
  readonly #owners: SqlResourceOwners
  readonly #audit: StoreAuditOptions
  #listening: Promise<void> | undefined
  #closed = false

  constructor(client: SqlClient, deps: SqlStoreDeps) {
    this.#client = client
    this.#deps = deps
    this.#audit = deps.audit ?? DEFAULT_STORE_AUDIT
    this.#feed = new RevocationFeed(deps.logger, deps.metrics)
    this.#owners = new SqlResourceOwners(client, (operation, fn) => this.#run(operation, fn))
  }

  async migrate(): Promise<MigrationResult> {
    return { applied: await this.#run('migrate', () => runMigrations(this.#client)) }
  }

  async create(account: NewServiceAccount, audit?: AuditDraft): Promise<ServiceAccountRecord> {
    return this.#run('create', async () => {
      try {
        return this.#appended(
          await this.#client.transaction(async (tx) => {
            const rows = await tx.query(
              `INSERT INTO portcullis_service_accounts
             (id, name, user_id, token_hash, token_prefix, scopes, created_at, expires_at, created_by)
           VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $8, $9)
           RETURNING ${ACCOUNT_COLUMNS}`,
              [
                account.id,
                account.name,
                account.userId,
                account.tokenHash,
                account.tokenPrefix,
                JSON.stringify(account.scopes),
                account.createdAt,
                account.expiresAt,
                account.createdBy,
              ],
            )
            const record = parseAccountRow(single(rows))
            const mint = mintEvent(account, audit)
            const since = rotationSince(account.createdAt, this.#audit.rotationWindowSeconds)
            const rotated = since === null ? null : await rotatedAccountIn(tx, account.name, since)
            const events = rotated === null ? [mint] : [mint, rotationEvent(mint, rotated)]
            return { result: record, events: await appendEventsIn(tx, events) }
          }),
        )
      } catch (error) {
        if (isUniqueViolationOf(error, ACTIVE_NAME_INDEX)) {
          throw new NameConflictError(account.name, { cause: error })
        }
        throw error
      }
    })
  }

  async findActiveByName(name: string): Promise<ServiceAccountRecord | null> {
    return this.#findOne('find_active_by_name', 'name = $1 AND revoked_at IS NULL', name)
  }

  async findByTokenHash(tokenHash: string): Promise<ServiceAccountRecord | null> {
    return this.#findOne('find_by_token_hash', 'token_hash = $1', tokenHash)
  }

  async findById(id: string): Promise<ServiceAccountRecord | null> {
    return this.#findOne('find_by_id', 'id = $1', id)
  }

  async list(query: ListQuery): Promise<ListResult> {
    return this.#page('list', listStatements(query), parseAccountRow)
  }

  async revoke(id: string, nowSeconds: number, audit?: AuditDraft): Promise<RevokeOutcome> {
    const revoked = await this.#run('revoke', () =>
      this.#client.transaction(async (tx): Promise<Appended<RevokeOutcome>> => {
        const rows = await tx.query(
          'SELECT name, token_hash, revoked_at FROM portcullis_service_accounts WHERE id = $1 FOR UPDATE',
          [id],
        )
        const row = rows[0]
        if (row === undefined) return { result: 'not_found', events: [] }
        if (row.revoked_at !== null) return { result: 'already_revoked', events: [] }
        await tx.query('UPDATE portcullis_service_accounts SET revoked_at = $2 WHERE id = $1', [
          id,
          nowSeconds,
        ])
        // Delivered at commit, to every replica listening, only if the UPDATE commits.
        await tx.query('SELECT pg_notify($1, $2)', [
          REVOCATION_CHANNEL,
          revocationPayload(id, String(row.token_hash)),
        ])
        const event = revokeEvent({ id, name: String(row.name) }, nowSeconds, audit)
        return { result: 'revoked', events: await appendEventsIn(tx, [event]) }
      }),
    )
    return this.#appended(revoked)
  }

  async touchLastUsed(id: string, nowSeconds: number, from?: string): Promise<void> {
    await this.#run('touch_last_used', () =>
      this.#client.query(
        `UPDATE portcullis_service_accounts
         SET last_used_at = $2, last_used_from = COALESCE($3, last_used_from)
         WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < $2)`,
        [id, nowSeconds, from ?? null],
      ),
    )
  }

  async appendEvents(
    events: readonly NewAuditEvent[],
    uses: readonly AccountUse[] = [],
  ): Promise<readonly AuditEvent[]> {
    const { addressesPerAccount } = this.#audit
    const appended = await this.#run('append_events', () =>
      this.#client.transaction(async (tx) => {
        if (uses.length > 0) await lockChainIn(tx)
        const derived = await addressEventsIn(tx, uses, addressesPerAccount)
        const stored = await appendEventsIn(tx, [...events, ...derived])
        return { result: stored, events: stored }
      }),
    )
    return this.#appended(appended)
  }

  async listEvents(query: EventQuery): Promise<EventPage> {
    return this.#page('list_events', eventListStatements(query), parseEventRow)
  }

  async eventsAfter(seq: number, limit: number): Promise<readonly AuditEvent[]> {
    return this.#run('list_events', async () => {
      const rows = await this.#client.query(
        `SELECT ${EVENT_COLUMNS} FROM portcullis_audit_events WHERE seq > $1 ORDER BY seq LIMIT $2`,
        [seq, limit],
      )
      return rows.map(parseEventRow)
    })
  }

  async pruneEvents(cutoff: number, draft: PruneDraft, limit: number): Promise<AuditEvent | null> {
    const event = await this.#run('prune_events', () =>
      this.#client.transaction((tx) => pruneEventsIn(tx, cutoff, draft, limit)),
    )
    return this.#appended({ result: event, events: event === null ? [] : [event] })
  }

  async onRevocation(listener: RevocationListener): Promise<Unsubscribe> {
    const unsubscribe = this.#feed.add(listener)
    this.#listening ??= this.#client.listen(
      REVOCATION_CHANNEL,
      (payload) => this.#feed.deliver(payload),
      () => this.#feed.gap(),
    )
    await this.#listening
    return unsubscribe
  }

  onNotificationGap(listener: () => void): Unsubscribe {
    return this.#feed.addGap(listener)
  }

  record(
    kind: OwnedResource,
    id: string,
    owner: string | null,
    nowSeconds: number,
  ): Promise<string | null> {
    return this.#owners.record(kind, id, owner, nowSeconds)
  }

  ownerOf(kind: OwnedResource, id: string): Promise<RecordedOwner> {
    return this.#owners.ownerOf(kind, id)
  }

  ownersOf(
    kind: OwnedResource,
    ids: readonly string[],
  ): Promise<ReadonlyMap<string, string | null>> {
    return this.#owners.ownersOf(kind, ids)
  }

  forget(kind: OwnedResource, id: string): Promise<boolean> {
    return this.#owners.forget(kind, id)
  }

  async ping(): Promise<void> {
    await this.#run('ping', () => this.#client.query('SELECT 1'))
  }

  async close(): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    this.#feed.clear()
    await this.#client.close()
  }

  /** Tells the audit listener what a committed transaction appended; returns its result. */
  #appended<T>({ result, events }: Appended<T>): T {
    if (events.length > 0) this.#audit.appended?.(events)
    return result
  }

  /** One page of rows and the count of all the rows the statements' filter matches. */
  async #page<T>(
    operation: StoreOperation,
    { page, count }: ListStatements,
    parse: (row: SqlRow) => T,
  ): Promise<{ rows: T[]; total: number }> {
    return this.#run(operation, async () => {
      const rows = await this.#client.query(page.text, page.params)
      const counted = await this.#client.query(count.text, count.params)
      return { rows: rows.map(parse), total: integerColumn(counted[0], 'total') }
    })
  }

  async #findOne(
    operation: StoreOperation,
    condition: string,
    value: string,
  ): Promise<ServiceAccountRecord | null> {
    return this.#run(operation, async () => {
      const rows = await this.#client.queryPrepared(
        `portcullis_${operation}`,
        `SELECT ${ACCOUNT_COLUMNS} FROM portcullis_service_accounts WHERE ${condition}`,
        [value],
      )
      return rows[0] === undefined ? null : parseAccountRow(rows[0])
    })
  }

  async #run<T>(operation: StoreOperation, fn: () => Promise<T>): Promise<T> {
    const metrics = this.#deps.metrics
    const end = metrics?.storeQueryDuration.startTimer({ operation })
    try {
      return await fn()
    } catch (error) {
      if (!(error instanceof NameConflictError)) {
        const kind = error instanceof StoreUnavailableError ? 'unavailable' : 'other'
        metrics?.storeErrors.inc({ operation, kind })
      }
      throw error
    } finally {
      end?.()
    }
  }
}

/** A transaction's result and the audit events it appended. */
interface Appended<T> {
  readonly result: T
  readonly events: readonly AuditEvent[]
}

function isUniqueViolationOf(error: unknown, constraint: string): boolean {
  if (typeof error !== 'object' || error === null) return false
  const fields = error as { code?: unknown; constraint?: unknown }
  return fields.code === '23505' && fields.constraint === constraint
}
