import { credentialDigest, isServiceToken, type Credential } from '../auth/credential.js'
import type { InboundRequest } from '../inbound/inbound-request.js'
import type { Principal } from '../principal.js'
import { NOT_RESPONSIBLE, type Verifier } from '../auth/verifier.js'
import type { Config } from '../config/schema.js'
import type { Logger } from '../logger.js'
import { throttleKey } from '../inbound/client-key.js'
import { systemClock, type Clock } from '../clock.js'
import { FailedLookupThrottle } from './failed-lookup-throttle.js'
import { LastUsedTracker } from './last-used-tracker.js'
import { RefusedTokens } from './refused-tokens.js'
import type { ServiceAccountMetrics } from './metrics.js'
import { ServiceAccountCache } from './service-account-cache.js'
import {
  isExpired,
  ServicePrincipals,
  type ServiceAccountPrincipal,
} from './service-account-principal.js'
import { StoreUnavailableError } from './store-errors.js'
import type { RevocationSubscriber } from './revocation-hub.js'
import type { ServiceAccountRecord, ServiceAccountStore } from './store.js'
import { checkTokenShape, storedHash } from './token-format.js'
import {
  invalidTokenError,
  throttledError,
  unavailableError,
  type FailureReason,
} from './verification-errors.js'

/** Refused tokens remembered at most this long (and never longer than the cache TTL). */
const MAX_REFUSAL_TTL_SECONDS = 60
const MAX_REFUSED_TOKENS = 10_000

const UNKNOWN = { reason: 'unknown', accountId: undefined } as const

export interface ServiceAccountVerifierDeps {
  readonly store: ServiceAccountStore
  readonly config: Config['service_accounts']
  readonly logger: Logger
  readonly metrics?: ServiceAccountMetrics
  readonly clock?: Clock
}

/**
 * Verifies `svc_pat_` tokens (PAT-2): shape, then cache, then store. Unknown, revoked,
 * expired and malformed tokens get the same 401 and each counts against the client's throttle; a
 * valid token is refused only past a limited client's lookup budget (PAT-4), and a store outage
 * (503) is never counted. Only the token's
 * SHA-256 is kept, looked up or logged: `tokenHash` here is its in-memory form (`credentialDigest`),
 * turned into the store's hex form for a lookup.
 */
export class ServiceAccountVerifier implements Verifier, RevocationSubscriber {
  readonly kind = 'service_account'
  readonly #store: ServiceAccountStore
  readonly #logger: Logger
  readonly #metrics: ServiceAccountMetrics | undefined
  readonly #clock: Clock
  readonly #cache: ServiceAccountCache
  readonly #throttle: FailedLookupThrottle
  readonly #lastUsed: LastUsedTracker
  readonly #refused: RefusedTokens
  readonly #principals = new ServicePrincipals()
  readonly #pendingWrites = new Set<Promise<void>>()
  // Bound once: the success counter is on every request's path.
  readonly #verifiedOk: { inc(): void } | undefined

  constructor(deps: ServiceAccountVerifierDeps) {
    const { config } = deps
    this.#store = deps.store
    this.#logger = deps.logger
    this.#metrics = deps.metrics
    this.#verifiedOk = deps.metrics?.verifications.labels({ reason: 'ok' })
    this.#clock = deps.clock ?? systemClock
    this.#cache = new ServiceAccountCache({
      ttlSeconds: config.cache_ttl_seconds,
      maxEntries: config.cache_max_entries,
      clock: this.#clock,
      metrics: deps.metrics,
    })
    this.#refused = new RefusedTokens({
      ttlSeconds: Math.min(config.cache_ttl_seconds, MAX_REFUSAL_TTL_SECONDS),
      maxEntries: Math.min(config.cache_max_entries, MAX_REFUSED_TOKENS),
      clock: this.#clock,
    })
    this.#throttle = new FailedLookupThrottle({
      maxFailures: config.max_failed_lookups,
      windowSeconds: config.failed_lookup_window_seconds,
      maxClients: config.throttle_max_clients,
      limitedLookupsPerSecond: config.throttled_lookups_per_second,
    })
    this.#lastUsed = new LastUsedTracker({
      intervalSeconds: config.last_used_interval_seconds,
      maxAccounts: config.cache_max_entries,
    })
  }

  /** Forgets a cached verification at once: a revocation, made here or on another replica. */
  revoked(tokenHash: string): void {
    this.#cache.evict(tokenHash, 'revoked')
  }

  /** Revocations may have been missed: every cached verification is forgotten. */
  gap(): void {
    this.#cache.clear('gap')
  }

  /** Resolves when every `last_used_at` write started so far has finished. */
  async settled(): Promise<void> {
    await Promise.all([...this.#pendingWrites])
  }

  async verify(
    credential: Credential,
    request: InboundRequest,
  ): Promise<Principal | typeof NOT_RESPONSIBLE> {
    if (!isServiceToken(credential.token)) return NOT_RESPONSIBLE
    const client = throttleKey(request.clientAddress)
    const tokenHash = credentialDigest(credential.token)
    // Only well-formed tokens are ever cached, so the shape check can wait for a miss.
    const cached = this.#cache.get(tokenHash)
    this.#logger.debug(
      { credential: 'service_account', cache: cached === undefined ? 'miss' : 'hit' },
      'auth: service-account token lookup',
    )
    if (cached !== undefined) return this.#fromCache(tokenHash, cached, client)
    // A malformed token costs no lookup but counts like an unknown one.
    if (checkTokenShape(credential.token) !== 'ok') this.#fail(client, 'malformed')
    const refused = this.#refused.get(tokenHash)
    if (refused !== undefined) this.#fail(client, refused.reason, refused.accountId)
    const now = this.#clock.monotonic()
    if (!this.#throttle.mayLookUp(client, now)) this.#refuseThrottled(client, now)
    this.#metrics?.cacheMisses.inc()
    return this.#fromStore(tokenHash, client)
  }

  #fromCache(tokenHash: string, cached: ServiceAccountPrincipal, client: string): Principal {
    const accountId = cached.serviceAccount.id
    // Revocation may wait for the TTL; expiry never does.
    if (isExpired(cached.expiresAt, this.#clock.now())) {
      this.#cache.evict(tokenHash, 'expired')
      this.#fail(client, 'expired', accountId)
    }
    return this.#succeed(accountId, cached)
  }

  async #fromStore(tokenHash: string, client: string): Promise<Principal> {
    const generation = this.#cache.generation
    let record: ServiceAccountRecord | null
    try {
      record = await this.#store.findByTokenHash(storedHash(tokenHash))
    } catch (error) {
      this.#unavailable(error)
    }
    if (record === null) {
      this.#refused.remember(tokenHash, UNKNOWN)
      this.#fail(client, 'unknown')
    }
    if (record.revokedAt !== null) {
      this.#cache.evict(tokenHash, 'revoked')
      const refusal = { reason: 'revoked', accountId: record.id } as const
      this.#refused.remember(tokenHash, refusal)
      this.#fail(client, 'revoked', record.id)
    }
    if (isExpired(record.expiresAt, this.#clock.now())) {
      this.#cache.evict(tokenHash, 'expired')
      this.#fail(client, 'expired', record.id)
    }
    const principal = this.#principals.of(record, tokenHash)
    this.#cache.set(tokenHash, principal, generation)
    return this.#succeed(principal.serviceAccount.id, principal)
  }

  #succeed(accountId: string, principal: Principal): Principal {
    this.#verifiedOk?.inc()
    this.#touch(accountId)
    return principal
  }

  #fail(client: string, reason: FailureReason, accountId?: string): never {
    const now = this.#clock.monotonic()
    if (this.#throttle.isLimited(client, now)) this.#refuseThrottled(client, now)
    this.#throttle.recordFailure(client, now)
    this.#metrics?.verifications.inc({ reason: `service_account.${reason}` })
    this.#logger.debug(
      { reason: `service_account.${reason}`, account_id: accountId },
      'service-account token rejected',
    )
    throw invalidTokenError(reason)
  }

  #refuseThrottled(client: string, now: number): never {
    const retryAfter = this.#throttle.retryAfterSeconds(client, now)
    this.#metrics?.throttled.inc()
    this.#metrics?.verifications.inc({ reason: 'service_account.throttled' })
    throw throttledError(retryAfter)
  }

  #unavailable(error: unknown): never {
    this.#metrics?.verifications.inc({ reason: 'service_account.unavailable' })
    // Fail closed on any lookup error, as AgentOS; only an unexpected one is logged as an error.
    if (error instanceof StoreUnavailableError) {
      this.#logger.warn({ err: error }, 'service-account store unavailable')
    } else {
      this.#logger.error({ err: error }, 'service-account lookup failed')
    }
    throw unavailableError(error)
  }

  #touch(accountId: string): void {
    if (!this.#lastUsed.claim(accountId, this.#clock.monotonic())) return
    const nowSeconds = Math.floor(this.#clock.now() / 1000)
    const write = this.#store.touchLastUsed(accountId, nowSeconds).catch((error: unknown) => {
      this.#logger.warn({ err: error, account_id: accountId }, 'could not record last_used_at')
    })
    this.#pendingWrites.add(write)
    void write.finally(() => this.#pendingWrites.delete(write))
  }
}
