import { integerColumn, nullableTextColumn } from './account-row.js'
import { chainEvents, DETAILS_FIELD, eventFields } from './audit-chain.js'
import {
  AUDIT_EVENT_TYPES,
  type AuditDetails,
  type AuditEvent,
  type AuditEventType,
  type EventQuery,
  type NewAuditEvent,
} from './audit-event.js'
import type { ListStatements } from './list-query.js'
import type { PrincipalKind } from '../principal.js'
import { pruneEvent, type PruneDraft } from './prune-event.js'
import type { SqlQueryable, SqlRow } from './sql-client.js'

/** Arbitrary, fixed: taken by every transaction that appends to the chain, so appends queue. */
export const AUDIT_CHAIN_LOCK_KEY = '7362915044120012'

export const EVENT_COLUMNS =
  'seq, id, occurred_at, type, actor_kind, actor, account_id, account_name, client_address, request_id, details, prev_hash, hash'
const INSERTED_COLUMNS = EVENT_COLUMNS.split(', ')

/**
 * Appends `events` to the chain inside the caller's transaction: the chain lock (held to commit)
 * first, then the last event, so that concurrent writers, other replicas included, link one after
 * another. Take it last in a transaction, after any row lock, so that it is never waited for by a
 * holder of the lock.
 */
export async function appendEventsIn(
  tx: SqlQueryable,
  events: readonly NewAuditEvent[],
): Promise<AuditEvent[]> {
  if (events.length === 0) return []
  await lockChainIn(tx)
  return insertChained(tx, chainEvents(await chainHead(tx), events))
}

/**
 * Removes at most `limit` of the chain's oldest events that occurred before `cutoff` and appends
 * the `prune` event that anchors what is left, inside the caller's transaction, under the chain
 * lock: of concurrent runs on one database, each removes what the others left, none the same
 * event twice. Only a prefix is removed (up to the first event not older than `cutoff`), so the
 * chain stays whole from its new first event. Returns the prune event, or null when nothing was
 * due. Only the oldest `limit` events are read, so the work (and the time the lock is held) is
 * bounded however many are due.
 */
export async function pruneEventsIn(
  tx: SqlQueryable,
  cutoff: number,
  draft: PruneDraft,
  limit: number,
): Promise<AuditEvent | null> {
  await lockChainIn(tx)
  const head = await chainHead(tx)
  if (head === null) return null
  const lastRows = await tx.query(
    `WITH oldest AS (
       SELECT seq, hash, occurred_at FROM portcullis_audit_events ORDER BY seq LIMIT $2
     ), kept AS (SELECT min(seq) AS seq FROM oldest WHERE occurred_at >= $1)
     SELECT seq, hash FROM oldest
     WHERE (SELECT seq FROM kept) IS NULL OR seq < (SELECT seq FROM kept)
     ORDER BY seq DESC LIMIT 1`,
    [cutoff, limit],
  )
  const last = lastRows[0]
  if (last === undefined) return null
  const lastSeq = integerColumn(last, 'seq')
  // The append-only trigger lets this transaction, and only it, delete.
  await tx.query("SELECT set_config('portcullis.audit_prune', 'on', true)")
  const [removed] = await tx.query(
    `WITH removed AS (DELETE FROM portcullis_audit_events WHERE seq <= $1 RETURNING seq)
     SELECT count(*) AS removed, min(seq) AS first_seq FROM removed`,
    [lastSeq],
  )
  await tx.query("SELECT set_config('portcullis.audit_prune', 'off', true)")
  const removal = {
    removed: integerColumn(removed, 'removed'),
    firstSeq: integerColumn(removed, 'first_seq'),
    lastSeq,
    lastHash: textColumn(last, 'hash'),
    cutoff,
  }
  const [event] = await insertChained(tx, chainEvents(head, [pruneEvent(draft, removal)]))
  return event ?? null
}

/** The newest event's place and hash; null when the chain is empty. */
async function chainHead(tx: SqlQueryable): Promise<{ seq: number; hash: string } | null> {
  const rows = await tx.query(
    'SELECT seq, hash FROM portcullis_audit_events ORDER BY seq DESC LIMIT 1',
  )
  const last = rows[0]
  return last === undefined
    ? null
    : { seq: integerColumn(last, 'seq'), hash: textColumn(last, 'hash') }
}

async function insertChained(tx: SqlQueryable, chained: AuditEvent[]): Promise<AuditEvent[]> {
  const params: unknown[] = []
  const tuples = chained.map((event) => {
    const values: unknown[] = [...eventFields(event), event.hash]
    values[DETAILS_FIELD] = JSON.stringify(event.details)
    const placeholders = values.map((value, index) => {
      params.push(value)
      return index === DETAILS_FIELD ? `$${params.length}::jsonb` : `$${params.length}`
    })
    return `(${placeholders.join(', ')})`
  })
  await tx.query(
    `INSERT INTO portcullis_audit_events (${INSERTED_COLUMNS.join(', ')}) VALUES ${tuples.join(', ')}`,
    params,
  )
  return chained
}

/** Takes the chain lock until the caller's transaction ends (again: a no-op). */
export async function lockChainIn(tx: SqlQueryable): Promise<void> {
  await tx.query('SELECT pg_advisory_xact_lock($1::bigint)', [AUDIT_CHAIN_LOCK_KEY])
}

/** Parses an event row from either driver. */
export function parseEventRow(row: SqlRow): AuditEvent {
  const type = textColumn(row, 'type')
  if (!(AUDIT_EVENT_TYPES as readonly string[]).includes(type)) {
    throw new TypeError(`column type holds an unknown event type`)
  }
  const rawDetails = row.details
  const details: unknown = typeof rawDetails === 'string' ? JSON.parse(rawDetails) : rawDetails
  if (details === null || typeof details !== 'object' || Array.isArray(details)) {
    throw new TypeError('column details is not an object')
  }
  return {
    seq: integerColumn(row, 'seq'),
    id: textColumn(row, 'id'),
    occurredAt: integerColumn(row, 'occurred_at'),
    type: type as AuditEventType,
    actorKind: nullableTextColumn(row, 'actor_kind') as PrincipalKind | null,
    actor: nullableTextColumn(row, 'actor'),
    accountId: nullableTextColumn(row, 'account_id'),
    accountName: nullableTextColumn(row, 'account_name'),
    clientAddress: nullableTextColumn(row, 'client_address'),
    requestId: nullableTextColumn(row, 'request_id'),
    details: details as AuditDetails,
    prevHash: textColumn(row, 'prev_hash'),
    hash: textColumn(row, 'hash'),
  }
}

/** The page (newest first) and count statements of an event query; values only as parameters. */
export function eventListStatements(query: EventQuery): ListStatements {
  if (!Number.isSafeInteger(query.limit) || query.limit < 0) throw new RangeError('bad limit')
  if (!Number.isSafeInteger(query.offset) || query.offset < 0) throw new RangeError('bad offset')
  const params: unknown[] = []
  const conditions: string[] = []
  const bind = (value: unknown): string => {
    params.push(value)
    return `$${params.length}`
  }
  if (query.types !== undefined) conditions.push(`e.type = ANY(${bind([...query.types])}::text[])`)
  if (query.accountId !== undefined) conditions.push(`e.account_id = ${bind(query.accountId)}`)
  if (query.accountName !== undefined)
    conditions.push(`e.account_name = ${bind(query.accountName)}`)
  if (query.since !== undefined) conditions.push(`e.occurred_at >= ${bind(query.since)}`)
  if (query.until !== undefined) conditions.push(`e.occurred_at < ${bind(query.until)}`)
  if (query.actor !== undefined) conditions.push(`e.actor = ${bind(query.actor)}`)
  if (query.visibleTo !== undefined) {
    const owner = bind(query.visibleTo.userId)
    conditions.push(
      `(CASE WHEN e.account_id IS NULL THEN e.actor = ${owner}::text
        ELSE EXISTS (SELECT 1 FROM portcullis_service_accounts a WHERE a.id = e.account_id
          AND (a.user_id IS NULL OR a.user_id = ${owner}::text)) END)`,
    )
  }
  const filter = conditions.length === 0 ? '' : `WHERE ${conditions.join(' AND ')}`
  const columns = EVENT_COLUMNS.split(', ')
    .map((column) => `e.${column}`)
    .join(', ')
  const paging = params.length
  return {
    page: {
      text: `SELECT ${columns} FROM portcullis_audit_events e ${filter}
        ORDER BY e.seq DESC LIMIT $${paging + 1} OFFSET $${paging + 2}`,
      params: [...params, query.limit, query.offset],
    },
    count: { text: `SELECT count(*) AS total FROM portcullis_audit_events e ${filter}`, params },
  }
}

function textColumn(row: SqlRow, column: string): string {
  const value = row[column]
  if (typeof value !== 'string') throw new TypeError(`column ${column} is not text`)
  return value
}
