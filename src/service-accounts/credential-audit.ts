import type { Clock } from '../clock.js'
import type { Config } from '../config/schema.js'
import type { AuditQueue } from './audit-queue.js'
import type { RefusedTokenCounter } from './metrics.js'
import { RefusedTally, type AuditedRequest, type RefusalReason } from './refused-tally.js'
import { ThrottleEpisodes } from './throttle-episodes.js'
import { clientClass } from './client-class.js'

/** An account as a verification knows it. */
export interface AuditedAccount {
  readonly id: string
  readonly name: string
}

export interface CredentialAuditOptions {
  readonly queue: AuditQueue
  readonly clock: Clock
  readonly audit: Config['audit']
  /** The throttle's settings, recorded with each episode. */
  readonly throttle: Pick<
    Config['service_accounts'],
    'max_failed_lookups' | 'failed_lookup_window_seconds' | 'throttle_max_clients'
  >
  readonly refusedTokens?: RefusedTokenCounter
}

/**
 * What token verification tells the audit trail: uses, refusals and throttling. Each call only
 * records in memory (a queue entry, a count); events reach the store with the queue's next flush.
 */
export class CredentialAudit {
  readonly #queue: AuditQueue
  readonly #clock: Clock
  readonly #refusedTokens: RefusedTokenCounter | undefined
  readonly #tally: RefusedTally
  readonly #episodes: ThrottleEpisodes
  readonly #throttleDetails: { failures: number; window_seconds: number }

  constructor(options: CredentialAuditOptions) {
    const { queue, clock, audit, throttle } = options
    this.#queue = queue
    this.#clock = clock
    this.#refusedTokens = options.refusedTokens
    const emit = queue.enqueue.bind(queue)
    this.#tally = new RefusedTally({
      windowMs: audit.refused_window_seconds * 1000,
      maxOpen: audit.queue_max_events,
      clock,
      emit,
    })
    this.#episodes = new ThrottleEpisodes({ maxOpen: throttle.throttle_max_clients, clock, emit })
    this.#throttleDetails = {
      failures: throttle.max_failed_lookups,
      window_seconds: throttle.failed_lookup_window_seconds,
    }
    queue.beforeFlush((closing) => {
      this.#tally.closeDue(closing)
      this.#episodes.closeDue(closing)
    })
  }

  /** A successful use from an address not seen for this account lately (the tracker decides). */
  used(account: AuditedAccount, request: AuditedRequest): void {
    this.#queue.enqueue({
      kind: 'use',
      accountId: account.id,
      accountName: account.name,
      clientAddress: request.clientAddress,
      requestId: request.requestId,
      occurredAt: Math.floor(this.#clock.now()),
      clientClass: clientClass(request.headers),
    })
  }

  /** A well-formed token refused: unknown, revoked or expired. */
  refused(
    reason: RefusalReason,
    account: AuditedAccount | undefined,
    request: AuditedRequest,
  ): void {
    this.#refusedTokens?.inc(account?.name)
    this.#tally.add(reason, account, request)
  }

  /** A client key the failed-lookup throttle has just begun to limit, for `retryAfterSeconds`. */
  throttled(key: string, request: AuditedRequest, retryAfterSeconds: number): void {
    this.#episodes.entered(key, request, retryAfterSeconds * 1000, {
      ...this.#throttleDetails,
      retry_after_seconds: retryAfterSeconds,
    })
  }
}
