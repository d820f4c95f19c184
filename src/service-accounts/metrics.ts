import { Counter, Gauge, Histogram, type Registry } from 'prom-client'
import { HotCounter, type BoundCounter } from '../hot-metrics.js'
import { AUDIT_EVENT_TYPES } from './audit-event.js'
import type { Reason } from '../reasons.js'

/**
 * How a `svc_pat_` verification ended: `ok`, or the reason it was refused, the same reason
 * `portcullis_auth_outcomes_total` and the access log carry.
 */
export const VERIFICATION_REASONS = [
  'ok',
  'service_account.malformed',
  'service_account.unknown',
  'service_account.revoked',
  'service_account.expired',
  'service_account.throttled',
  'service_account.unavailable',
] as const satisfies readonly (Reason | 'ok')[]
export type VerificationReason = (typeof VERIFICATION_REASONS)[number]

export type CacheEvictionReason = 'revoked' | 'expired' | 'stale' | 'capacity' | 'gap'

export type StoreOperation =
  | 'migrate'
  | 'create'
  | 'find_active_by_name'
  | 'find_by_token_hash'
  | 'find_by_id'
  | 'list'
  | 'revoke'
  | 'touch_last_used'
  | 'ping'
  | 'record_owner'
  | 'owner_of'
  | 'owners_of'
  | 'forget_owner'
  | 'append_events'
  | 'list_events'
  | 'prune_events'

const QUERY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5]

/** Service-account metrics; labels are bounded enums, never a name, id or token. */
export interface ServiceAccountMetrics {
  /** On every request's path (a warm token counts `ok`): a counter without prom-client's label hashing. */
  readonly verifications: HotCounter<'reason'>
  readonly cacheHits: Counter
  readonly cacheMisses: Counter
  readonly cacheEvictions: Counter<'reason'>
  readonly throttled: Counter
  readonly storeQueryDuration: Histogram<'operation'>
  /** `kind`: `unavailable` (unreachable, timed out) or `other`. */
  readonly storeErrors: Counter<'operation' | 'kind'>
  readonly revocationNotifications: Counter
}

export function createServiceAccountMetrics(registry: Registry): ServiceAccountMetrics {
  const registers = [registry]
  const verifications = new HotCounter({
    name: 'portcullis_service_account_verifications_total',
    help: `svc_pat_ verifications, by reason (${VERIFICATION_REASONS.join(', ')}).`,
    labelNames: ['reason'] as const,
    registers,
  })
  for (const reason of VERIFICATION_REASONS) verifications.bind(reason)
  return {
    verifications,
    cacheHits: new Counter({
      name: 'portcullis_service_account_cache_hits_total',
      help: 'Verifications answered from the in-process cache.',
      registers,
    }),
    cacheMisses: new Counter({
      name: 'portcullis_service_account_cache_misses_total',
      help: 'Verifications that had to ask the store.',
      registers,
    }),
    cacheEvictions: new Counter({
      name: 'portcullis_service_account_cache_evictions_total',
      help: 'Cache entries dropped, by reason (revoked, expired, stale, capacity, gap).',
      labelNames: ['reason'] as const,
      registers,
    }),
    throttled: new Counter({
      name: 'portcullis_service_account_throttled_requests_total',
      help: 'Requests refused with 429 by the failed-lookup throttle.',
      registers,
    }),
    storeQueryDuration: new Histogram({
      name: 'portcullis_service_account_store_query_duration_seconds',
      help: 'Service-account store operation time, by operation.',
      labelNames: ['operation'] as const,
      buckets: QUERY_BUCKETS,
      registers,
    }),
    storeErrors: new Counter({
      name: 'portcullis_service_account_store_errors_total',
      help: 'Failed service-account store operations, by operation and kind (unavailable, other).',
      labelNames: ['operation', 'kind'] as const,
      registers,
    }),
    revocationNotifications: new Counter({
      name: 'portcullis_service_account_revocation_notifications_total',
      help: 'Revocation notifications received from the database (any replica).',
      registers,
    }),
  }
}

/**
 * The audit trail's metrics. `type` is the closed list of event types; the account label of
 * refused tokens is bounded by `RefusedTokenCounter`.
 */
export interface AuditMetrics {
  /** Events written to the trail, by type. */
  readonly events: Counter<'type'>
  /** Every refused svc_pat_ token (not aggregated), by account name, `(unknown)` or `(other)`. */
  readonly refusedTokens: HotCounter<'account'>
  readonly dropped: Counter<'type'>
  readonly queueDepth: Gauge
  readonly writeFailures: Counter
}

export function createAuditMetrics(registry: Registry, queueDepth: () => number): AuditMetrics {
  const registers = [registry]
  const byType = (name: string, help: string): Counter<'type'> => {
    const counter = new Counter({ name, help, labelNames: ['type'] as const, registers })
    for (const type of AUDIT_EVENT_TYPES) counter.inc({ type }, 0)
    return counter
  }
  const depth: Gauge = new Gauge({
    name: 'portcullis_audit_queue_depth',
    help: 'Audit events waiting in memory to be written.',
    registers,
    collect: () => {
      depth.set(queueDepth())
    },
  })
  return {
    events: byType('portcullis_audit_events_total', 'Audit events written to the trail, by type.'),
    refusedTokens: new HotCounter({
      name: 'portcullis_audit_refused_tokens_total',
      help: `Refused well-formed svc_pat_ tokens (unknown, revoked, expired), each counted, by account name (${UNKNOWN_ACCOUNT_LABEL} when no account matches; ${OTHER_ACCOUNTS_LABEL} past the first ${MAX_REFUSED_ACCOUNT_LABELS} names).`,
      labelNames: ['account'] as const,
      registers,
    }),
    dropped: byType(
      'portcullis_audit_events_dropped_total',
      'Audit events dropped unwritten (the queue was full, or the store was down at shutdown), by type.',
    ),
    queueDepth: depth,
    writeFailures: new Counter({
      name: 'portcullis_audit_write_failures_total',
      help: 'Failed writes of queued audit events (the events wait and are written again).',
      registers,
    }),
  }
}

/** Distinct account names a process gives a refused-token series of its own. */
export const MAX_REFUSED_ACCOUNT_LABELS = 100

/**
 * The refused-token `account` values that are not names: parentheses, which an account name (a
 * lowercase slug) cannot contain, so an account named `unknown` or `other` keeps its own series.
 */
export const UNKNOWN_ACCOUNT_LABEL = '(unknown)'
export const OTHER_ACCOUNTS_LABEL = '(other)'

/**
 * Counts refused tokens by account name with a bounded label set: names come from accounts that
 * exist (a token matched them), yet an operator with thousands of expired accounts still gets at
 * most `MAX_REFUSED_ACCOUNT_LABELS` series; later names share `OTHER_ACCOUNTS_LABEL`.
 */
export class RefusedTokenCounter {
  readonly #counter: HotCounter<'account'>
  readonly #bound = new Map<string, BoundCounter>()
  // Bound on first use: a series is exposed only once something was counted in it.
  #unknown: BoundCounter | undefined
  #other: BoundCounter | undefined

  constructor(counter: HotCounter<'account'>) {
    this.#counter = counter
  }

  inc(accountName: string | undefined): void {
    if (accountName === undefined)
      return (this.#unknown ??= this.#counter.bind(UNKNOWN_ACCOUNT_LABEL)).inc()
    let child = this.#bound.get(accountName)
    if (child === undefined) {
      if (this.#bound.size >= MAX_REFUSED_ACCOUNT_LABELS) {
        return (this.#other ??= this.#counter.bind(OTHER_ACCOUNTS_LABEL)).inc()
      }
      child = this.#counter.bind(accountName)
      this.#bound.set(accountName, child)
    }
    child.inc()
  }
}
