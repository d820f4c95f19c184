import { randomUUID } from 'node:crypto'
import type { AccountUse, NewAuditEvent } from './audit-event.js'

/**
 * Whether a use from an address the account was not known at is its first use: no address was
 * known, and `last_used_at` (written apart, at most once per interval) shows no use in an earlier
 * second either, which also covers accounts used before addresses were recorded.
 */
export function isFirstUse(
  knownAddresses: number,
  lastUsedAt: number | null,
  use: AccountUse,
): boolean {
  return knownAddresses === 0 && (lastUsedAt === null || lastUsedAt >= secondOf(use.occurredAt))
}

/** The event of a use from an address the account was not known at. */
export function addressEvent(use: AccountUse, first: boolean): NewAuditEvent {
  return {
    id: randomUUID(),
    occurredAt: use.occurredAt,
    type: first ? 'first_use' : 'use_from_new_address',
    actorKind: 'service_account',
    actor: `sa:${use.accountName}`,
    accountId: use.accountId,
    accountName: use.accountName,
    clientAddress: use.clientAddress,
    requestId: use.requestId,
    details: { client_class: use.clientClass },
  }
}

/** The account of the same name revoked shortly before a mint, and its `revoke` event. */
export interface RotatedAccount {
  readonly accountId: string
  readonly revokedAt: number
  /** Null when the event is gone (retention). */
  readonly revokeEventId: string | null
}

/** The `rotation` event of a mint that replaces `previous`, from the mint's own origin. */
export function rotationEvent(mint: NewAuditEvent, previous: RotatedAccount): NewAuditEvent {
  return {
    ...mint,
    id: randomUUID(),
    type: 'rotation',
    details: {
      revoked_account_id: previous.accountId,
      revoke_event_id: previous.revokeEventId,
      mint_event_id: mint.id,
      revoked_at: previous.revokedAt,
      seconds_between: Math.max(0, secondOf(mint.occurredAt) - previous.revokedAt),
    },
  }
}

/** The earliest `revoked_at` (epoch seconds) a mint at `createdAt` counts as a rotation of. */
export function rotationSince(createdAt: number, windowSeconds: number): number | null {
  return windowSeconds > 0 ? createdAt - windowSeconds : null
}

function secondOf(ms: number): number {
  return Math.floor(ms / 1000)
}
