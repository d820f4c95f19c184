import type { AuditEvent, NewAuditEvent } from './audit-event.js'

/** What a retention run removed: the oldest events of the chain, `firstSeq` to `lastSeq`. */
export interface Removal {
  readonly removed: number
  readonly firstSeq: number
  readonly lastSeq: number
  /** The hash of the last event removed: the `prevHash` of the first event kept (the anchor). */
  readonly lastHash: string
  /** Events that occurred before this time (epoch milliseconds) were due for removal. */
  readonly cutoff: number
}

/** What retention adds to the `prune` event it writes. */
export interface PruneDraft {
  readonly id: string
  readonly occurredAt: number
}

/**
 * The `prune` event a retention run appends after removing the chain's oldest events. Retention
 * is the gateway's own doing: no actor, account, client or request.
 */
export function pruneEvent(draft: PruneDraft, removal: Removal): NewAuditEvent {
  return {
    id: draft.id,
    occurredAt: draft.occurredAt,
    type: 'prune',
    actorKind: null,
    actor: null,
    accountId: null,
    accountName: null,
    clientAddress: null,
    requestId: null,
    details: {
      removed: removal.removed,
      first_seq: removal.firstSeq,
      last_seq: removal.lastSeq,
      last_hash: removal.lastHash,
      cutoff: removal.cutoff,
    },
  }
}

/**
 * The removal a stored `prune` event records; null when its details could not have been written
 * by a retention run (a count that does not match the range, a range not before the event).
 */
export function removalOf(event: AuditEvent): Removal | null {
  const { removed, first_seq: firstSeq, last_seq: lastSeq, last_hash: lastHash } = event.details
  const cutoff = event.details.cutoff
  if (
    !isPositiveInteger(firstSeq) ||
    !isPositiveInteger(lastSeq) ||
    !isPositiveInteger(removed) ||
    typeof cutoff !== 'number' ||
    !Number.isSafeInteger(cutoff) ||
    Math.abs(cutoff) > LATEST_DATE_MS ||
    typeof lastHash !== 'string' ||
    !/^[0-9a-f]{64}$/.test(lastHash) ||
    lastSeq < firstSeq ||
    removed !== lastSeq - firstSeq + 1 ||
    lastSeq >= event.seq
  )
    return null
  return { removed, firstSeq, lastSeq, lastHash, cutoff }
}

/** The furthest a JavaScript Date reaches either side of the epoch. */
const LATEST_DATE_MS = 8.64e15

function isPositiveInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0
}
