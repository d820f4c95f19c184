import type { Logger } from '../logger.js'
import { eventResponse } from './api/event-response.js'
import type { AuditEvent } from './audit-event.js'
import type { AuditMetrics } from './metrics.js'

/**
 * Every event written to the trail, as the event listings show it, also as one log line
 * (`"audit": true` and the same fields) for log pipelines, and counted by type. Told by the store
 * after each commit, so a line means the event is in the chain.
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
      this.#logger.info({ audit: true, ...eventResponse(event) }, `audit: ${event.type}`)
    }
  }
}
