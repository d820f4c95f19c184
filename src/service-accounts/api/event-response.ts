import type { AuditEvent } from '../audit-event.js'

/**
 * An audit event as the event listings show it: snake_case, the time in ISO 8601 (UTC,
 * milliseconds). Every field is shown, the chain's hashes included, so that a reader can check
 * the chain from the answers; events never hold a token or a token's hash.
 */
export function eventResponse(event: AuditEvent): Record<string, unknown> {
  return {
    id: event.id,
    seq: event.seq,
    occurred_at: new Date(event.occurredAt).toISOString(),
    type: event.type,
    actor_kind: event.actorKind,
    actor: event.actor,
    account_id: event.accountId,
    account_name: event.accountName,
    client_address: event.clientAddress,
    request_id: event.requestId,
    details: event.details,
    prev_hash: event.prevHash,
    hash: event.hash,
  }
}
