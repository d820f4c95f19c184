import { integerColumn, nullableTextColumn } from './account-row.js'
import type { AccountUse, NewAuditEvent } from './audit-event.js'
import { addressEvent, isFirstUse, type RotatedAccount } from './derived-events.js'
import type { SqlQueryable } from './sql-client.js'

/**
 * Records each use's address among its account's known ones, inside the caller's transaction,
 * and returns the events of the uses from an address that was not known. The caller holds the
 * chain lock, so that two replicas never both take the same account's first use for theirs.
 */
export async function addressEventsIn(
  tx: SqlQueryable,
  uses: readonly AccountUse[],
  addressesPerAccount: number,
): Promise<NewAuditEvent[]> {
  const events: NewAuditEvent[] = []
  for (const use of uses) {
    const pair = [use.accountId, use.clientAddress, use.occurredAt]
    const inserted = await tx.query(
      `INSERT INTO portcullis_account_addresses (account_id, address, first_seen_at, last_seen_at)
       VALUES ($1, $2, $3, $3) ON CONFLICT (account_id, address) DO NOTHING RETURNING account_id`,
      pair,
    )
    if (inserted.length === 0) {
      await tx.query(
        `UPDATE portcullis_account_addresses SET last_seen_at = $3
         WHERE account_id = $1 AND address = $2 AND last_seen_at < $3`,
        pair,
      )
      continue
    }
    const [state] = await tx.query(
      `SELECT (SELECT count(*) FROM portcullis_account_addresses WHERE account_id = $1) AS known,
              (SELECT last_used_at FROM portcullis_service_accounts WHERE id = $1) AS last_used_at`,
      [use.accountId],
    )
    const known = integerColumn(state, 'known')
    const lastUsedAt = state?.last_used_at === null ? null : integerColumn(state, 'last_used_at')
    events.push(addressEvent(use, isFirstUse(known - 1, lastUsedAt, use)))
    if (known > addressesPerAccount) {
      await tx.query(
        `DELETE FROM portcullis_account_addresses WHERE account_id = $1 AND address IN (
           SELECT address FROM portcullis_account_addresses WHERE account_id = $1
           ORDER BY last_seen_at DESC, address OFFSET $2)`,
        [use.accountId, addressesPerAccount],
      )
    }
  }
  return events
}

/** The latest account named `name` revoked at or after `since` (epoch seconds), if any. */
export async function rotatedAccountIn(
  tx: SqlQueryable,
  name: string,
  since: number,
): Promise<RotatedAccount | null> {
  const [row] = await tx.query(
    `SELECT a.id, a.revoked_at,
       (SELECT e.id FROM portcullis_audit_events e WHERE e.account_id = a.id AND e.type = 'revoke'
        ORDER BY e.seq DESC LIMIT 1) AS revoke_event_id
     FROM portcullis_service_accounts a
     WHERE a.name = $1 AND a.revoked_at IS NOT NULL AND a.revoked_at >= $2
     ORDER BY a.revoked_at DESC, a.id LIMIT 1`,
    [name, since],
  )
  if (row === undefined) return null
  return {
    accountId: String(row.id),
    revokedAt: integerColumn(row, 'revoked_at'),
    revokeEventId: nullableTextColumn(row, 'revoke_event_id'),
  }
}
