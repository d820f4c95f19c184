import { createHash } from 'node:crypto'
import type { AuditEvent, AuditValue, NewAuditEvent } from './audit-event.js'

/** The `prevHash` of a database's first event. */
export const GENESIS_HASH = '0'.repeat(64)

/** Names the serialization below; a different one would get a different tag. */
const FORMAT = 'portcullis-audit-v1'

/**
 * The bytes an event's hash covers: the UTF-8 of a JSON array, no whitespace, of
 * `["portcullis-audit-v1", seq, id, occurred_at, type, actor_kind, actor, account_id,
 * account_name, client_address, request_id, details, prev_hash]`, where `details` is written with
 * the keys of every object sorted by UTF-16 code unit (JavaScript's default sort) and absent
 * values as null. The database may reorder a JSON object's keys; sorting makes the bytes depend on
 * the values only.
 */
function canonicalEvent(event: LinkedEvent): string {
  const fields = eventFields(event)
  fields[DETAILS_FIELD] = sortedKeys(event.details)
  return JSON.stringify([FORMAT, ...fields])
}

type LinkedEvent = NewAuditEvent & { seq: number; prevHash: string }

/** Where `details` is in `eventFields`. */
export const DETAILS_FIELD = 10

/** The fields an event's hash covers, in the order of the table's columns (`hash` aside). */
export function eventFields(event: LinkedEvent): AuditValue[] {
  return [
    event.seq,
    event.id,
    event.occurredAt,
    event.type,
    event.actorKind,
    event.actor,
    event.accountId,
    event.accountName,
    event.clientAddress,
    event.requestId,
    event.details,
    event.prevHash,
  ]
}

/** SHA-256 (hex) of the canonical serialization. */
export function eventHash(event: LinkedEvent): string {
  return createHash('sha256').update(canonicalEvent(event), 'utf8').digest('hex')
}

/** `events` appended after `last` (null: the chain is empty), each linked to the one before. */
export function chainEvents(
  last: { seq: number; hash: string } | null,
  events: readonly NewAuditEvent[],
): AuditEvent[] {
  let seq = last?.seq ?? 0
  let prevHash = last?.hash ?? GENESIS_HASH
  return events.map((event) => {
    seq += 1
    const linked = { ...event, seq, prevHash }
    const hash = eventHash(linked)
    prevHash = hash
    return { ...linked, hash }
  })
}

function sortedKeys(value: AuditValue): AuditValue {
  if (Array.isArray(value)) return value.map(sortedKeys)
  if (value !== null && typeof value === 'object') {
    const object = value as { readonly [key: string]: AuditValue }
    return Object.fromEntries(
      Object.keys(object)
        .sort()
        .map((key) => [key, sortedKeys(object[key] ?? null)]),
    )
  }
  return value
}
