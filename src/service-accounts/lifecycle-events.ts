import { randomUUID } from 'node:crypto'
import type { AuditDraft, NewAuditEvent } from './audit-event.js'
import type { NewServiceAccount, ServiceAccountRecord } from './store.js'

/**
 * The `mint` event written with an account: its scopes, owner and expiry, plus what the caller
 * adds (the privileged flag). Without a draft (a store used directly, not through the API) the
 * event is still written, with no actor or origin.
 */
export function mintEvent(account: NewServiceAccount, draft?: AuditDraft): NewAuditEvent {
  return {
    ...originOf(draft, account.createdAt),
    type: 'mint',
    accountId: account.id,
    accountName: account.name,
    details: {
      scopes: [...account.scopes],
      owner: account.userId,
      expires_at: account.expiresAt,
      ...draft?.details,
    },
  }
}

/** The `revoke` event written with the revocation it records (never for a repeat). */
export function revokeEvent(
  account: Pick<ServiceAccountRecord, 'id' | 'name'>,
  nowSeconds: number,
  draft?: AuditDraft,
): NewAuditEvent {
  return {
    ...originOf(draft, nowSeconds),
    type: 'revoke',
    accountId: account.id,
    accountName: account.name,
    details: { revoked_at: nowSeconds, ...draft?.details },
  }
}

function originOf(
  draft: AuditDraft | undefined,
  seconds: number,
): Omit<NewAuditEvent, 'type' | 'accountId' | 'accountName' | 'details'> {
  return {
    id: draft?.id ?? randomUUID(),
    occurredAt: draft?.occurredAt ?? seconds * 1000,
    actorKind: draft?.actorKind ?? null,
    actor: draft?.actor ?? null,
    clientAddress: draft?.clientAddress ?? null,
    requestId: draft?.requestId ?? null,
  }
}
