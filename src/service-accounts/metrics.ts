import { Counter, Histogram, type Registry } from 'prom-client'
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
  readonly verifications: Counter<'reason'>
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
  const verifications = new Counter({
    name: 'portcullis_service_account_verifications_total',
    help: `svc_pat_ verifications, by reason (${VERIFICATION_REASONS.join(', ')}).`,
    labelNames: ['reason'] as const,
    registers,
  })
  for (const reason of VERIFICATION_REASONS) verifications.inc({ reason }, 0)
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
