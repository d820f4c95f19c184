import { z } from 'zod'

/** The service-account audit trail: how events that no change carries reach the store. */
export const auditSchema = z
  .strictObject({
    queue_max_events: z
      .number()
      .int()
      .min(1)
      .default(10_000)
      .describe(
        'Most audit events waiting in memory to be written (first use, new address, refused, throttled). When full, the oldest refused events are dropped first, then the oldest of any kind, each counted in portcullis_audit_events_dropped_total. Mint, revoke and rotation events are written with the change and never wait here.',
      ),
    batch_size: z
      .number()
      .int()
      .min(1)
      .default(500)
      .describe('Most queued audit events written in one transaction.'),
    flush_interval_ms: z
      .number()
      .int()
      .min(10)
      .default(1_000)
      .describe(
        'How often queued audit events are written; while the store is down, how often writing is tried again.',
      ),
    refused_window_seconds: z
      .number()
      .int()
      .min(1)
      .default(60)
      .describe(
        'Refused svc_pat_ tokens are recorded as one refused event per client address, reason and account per window, with their count: a flood writes a bounded number of rows.',
      ),
    rotation_window_seconds: z
      .number()
      .int()
      .min(0)
      .default(3_600)
      .describe(
        'A mint of a name whose account was revoked at most this long before is also recorded as one rotation event referencing both; 0: never.',
      ),
    addresses_per_account: z
      .number()
      .int()
      .min(1)
      .default(20)
      .describe(
        'Client addresses remembered per account to tell a use from a new address (least recently seen forgotten first; a forgotten address that comes back is new again).',
      ),
    retention_days: z
      .number()
      .int()
      .min(1)
      .max(36_500)
      .default(365)
      .describe(
        'Audit events older than this many days are removed, at start-up and then daily, and the removal is recorded as a prune event that `portcullis audit verify` checks the rest of the chain against. At least 1; there is no value that keeps events forever (36500 keeps a century).',
      ),
    prune_batch_size: z
      .number()
      .int()
      .min(1)
      .max(100_000)
      .default(5_000)
      .describe(
        'Most audit events retention removes in one transaction, oldest first, each batch recorded by a prune event of its own. The chain lock is held for one batch only, so audit writes (mints, revokes, queued events) go on between batches however many events are due, and a run stopped (shutdown) between batches leaves a trail that verifies; the next run removes the rest.',
      ),
  })
  .prefault({})
