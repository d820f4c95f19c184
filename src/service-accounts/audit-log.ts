import type { Logger } from '../logger.js'
import type { AuditEvent } from './audit-event.js'
import type { AuditMetrics } from './metrics.js'

/**
 * Every event written to the trail, as it is stored, also as one log line (`"audit": true`, the
 * table's fields) for log pipelines, and counted by type. Told by the store after each commit, so
 * a line means the event is in the chain.
 */
export class AuditLog {
  readonly #logger: Logger
  readonly #metrics: Pick<AuditMetrics, 'events'> | undefined

  constructor(logger: Logger, metrics?: Pick<AuditMetrics, 'events'>) {
    this.#logger = logger
    this.#metrics = metrics
  }

  readonly appended = (events: readonly AuditEvent[]): void => {
    for (const event of events) {
      this.#metrics?.events.inc({ type: event.type })
      this.#logger.info(
        {
          audit: true,
          seq: event.seq,
          id: event.id,
          occurred_at: event.occurredAt,
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
        },
        `audit: ${event.type}`,
      )
    }
  }
}
