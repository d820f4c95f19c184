import { credentialDigest, isServiceToken, type Credential } from '../auth/credential.js'
import type { GatewayError } from '../errors.js'
import type { InboundRequest } from '../inbound/inbound-request.js'
import type { Principal } from '../principal.js'
import { NOT_RESPONSIBLE, type Verifier, type VerifierAnswer } from '../auth/verifier.js'
import type { Config } from '../config/schema.js'
import type { Logger } from '../logger.js'
import { throttleKey } from '../inbound/client-key.js'
import { systemClock, type Clock } from '../clock.js'
import { DEFAULT_STORE_AUDIT } from './audit-event.js'
import type { CredentialAudit } from './credential-audit.js'
import { FailedLookupThrottle } from './failed-lookup-throttle.js'
import { LastUsedTracker } from './last-used-tracker.js'
import { RefusedTokens } from './refused-tokens.js'
import type { ServiceAccountMetrics, VerificationReason } from './metrics.js'
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

const UNKNOWN = { reason: 'unknown', account: undefined } as const

export interface ServiceAccountVerifierDeps {
  readonly store: ServiceAccountStore
  readonly config: Config['service_accounts']
  readonly logger: Logger
  readonly metrics?: ServiceAccountMetrics
  readonly clock?: Clock
  /** Where uses, refusals and throttling are recorded; none: not recorded. */
  readonly audit?: CredentialAudit
  /** Addresses remembered per account between writes (`audit.addresses_per_account`). */
  readonly addressesPerAccount?: number
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
  readonly #audit: CredentialAudit | undefined
  readonly #principals = new ServicePrincipals()
  readonly #pendingWrites = new Set<Promise<void>>()
  #lastAddress: string | undefined
  #lastClientKey = ''
  // Bound once: the success counter is on every request's path.
  readonly #verifiedOk: { inc(): void } | undefined

  constructor(deps: ServiceAccountVerifierDeps) {
    const { config } = deps
    this.#store = deps.store
    this.#logger = deps.logger
    this.#metrics = deps.metrics
    this.#verifiedOk = deps.metrics?.verifications.bind('ok')
    this.#clock = deps.clock ?? systemClock
    this.#audit = deps.audit
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
      maxAddresses: deps.addressesPerAccount ?? DEFAULT_STORE_AUDIT.addressesPerAccount,
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

  /** A cached token is answered at once, and so is a refusal made without a lookup. */
  verify(credential: Credential, request: InboundRequest): VerifierAnswer {
    if (!isServiceToken(credential.token)) return NOT_RESPONSIBLE
    const tokenHash = credentialDigest(credential.token)
    // Only well-formed tokens are ever cached, so the shape check can wait for a miss.
    const cached = this.#cache.get(tokenHash)
    // The line's object is made only when it is written: this runs on every request.
    if (this.#logger.isLevelEnabled('debug')) {
      this.#logger.debug(
        { credential: 'service_account', cache: cached === undefined ? 'miss' : 'hit' },
        'auth: service-account token lookup',
      )
    }
    if (cached !== undefined) return this.#fromCache(tokenHash, cached, request)
    // Only a refusal needs the client's throttle key: a cached token is answered without it.
    const client = this.#clientKey(request.clientAddress)
    // A malformed token costs no lookup but counts like an unknown one.
    if (checkTokenShape(credential.token) !== 'ok') return this.#fail(client, 'malformed', request)
    const refused = this.#refused.get(tokenHash)
    if (refused !== undefined) return this.#fail(client, refused.reason, request, refused.account)
    const retryAfter = this.#throttle.lookupRetryAfter(client, this.#clock.monotonic())
    if (retryAfter > 0) return this.#refuseThrottled(retryAfter)
    this.#metrics?.cacheMisses.inc()
    return this.#fromStore(tokenHash, client, request)
  }

  #fromCache(
    tokenHash: string,
    cached: ServiceAccountPrincipal,
    request: InboundRequest,
  ): Principal | GatewayError {
    // Revocation may wait for the TTL; expiry never does.
    if (isExpired(cached.expiresAt, this.#clock.now())) {
      this.#cache.evict(tokenHash, 'expired')
      const client = this.#clientKey(request.clientAddress)
      return this.#fail(client, 'expired', request, cached.serviceAccount)
    }
    return this.#succeed(cached, request)
  }

  async #fromStore(
    tokenHash: string,
    client: string,
    request: InboundRequest,
  ): Promise<Principal | GatewayError> {
    const generation = this.#cache.generation
    let record: ServiceAccountRecord | null
    try {
      record = await this.#store.findByTokenHash(storedHash(tokenHash))
    } catch (error) {
      return this.#unavailable(error)
    }
    if (record === null) {
      this.#refused.remember(tokenHash, UNKNOWN)
      return this.#fail(client, 'unknown', request)
    }
    const account = { id: record.id, name: record.name }
    if (record.revokedAt !== null) {
      this.#cache.evict(tokenHash, 'revoked')
      this.#refused.remember(tokenHash, { reason: 'revoked', account })
      return this.#fail(client, 'revoked', request, account)
    }
    if (isExpired(record.expiresAt, this.#clock.now())) {
      this.#cache.evict(tokenHash, 'expired')
      return this.#fail(client, 'expired', request, account)
    }
    const principal = this.#principals.of(record, tokenHash)
    this.#cache.set(tokenHash, principal, generation)
    return this.#succeed(principal, request)
  }

  #succeed(principal: ServiceAccountPrincipal, request: InboundRequest): Principal {
    this.#verifiedOk?.inc()
    this.#touch(principal.serviceAccount, request)
    return principal
  }

  #fail(
    client: string,
    reason: FailureReason,
    request: InboundRequest,
    account?: { readonly id: string; readonly name: string },
  ): GatewayError {
    // A well-formed token refused, throttled or not, is in the trail; a malformed one is noise.
    if (reason !== 'malformed') this.#audit?.refused(reason, account, request)
    const now = this.#clock.monotonic()
    const retryAfter = this.#throttle.retryAfterSeconds(client, now)
    if (retryAfter > 0) return this.#refuseThrottled(retryAfter)
    if (this.#throttle.recordFailure(client, now)) {
      this.#audit?.throttled(client, request, this.#throttle.retryAfterSeconds(client, now))
    }
    this.#countVerification(`service_account.${reason}`)
    if (this.#logger.isLevelEnabled('debug')) {
      this.#logger.debug(
        { reason: `service_account.${reason}`, account_id: account?.id },
        'service-account token rejected',
      )
    }
    return invalidTokenError(reason)
  }

  /**
   * The throttle key of a client address, the last one remembered: a flood comes from few
   * addresses, and parsing one (an IPv4 test, IPv6 groups) ran for each of its requests.
   */
  #clientKey(address: string): string {
    if (address !== this.#lastAddress) {
      this.#lastClientKey = throttleKey(address)
      this.#lastAddress = address
    }
    return this.#lastClientKey
  }

  /** `portcullis_service_account_verifications_total` by reason (no label hashing). */
  #countVerification(reason: VerificationReason): void {
    this.#metrics?.verifications.inc(reason)
  }

  #refuseThrottled(retryAfter: number): GatewayError {
    this.#metrics?.throttled.inc()
    this.#countVerification('service_account.throttled')
    return throttledError(retryAfter)
  }

  #unavailable(error: unknown): GatewayError {
    this.#countVerification('service_account.unavailable')
    // Fail closed on any lookup error, as AgentOS; only an unexpected one is logged as an error.
    if (error instanceof StoreUnavailableError) {
      this.#logger.warn({ err: error }, 'service-account store unavailable')
    } else {
      this.#logger.error({ err: error }, 'service-account lookup failed')
    }
    return unavailableError(error)
  }

  #touch(account: { readonly id: string; readonly name: string }, request: InboundRequest): void {
    const from = request.clientAddress
    const claim = this.#lastUsed.claim(account.id, from, this.#clock.monotonic())
    if (claim === 'none') return
    if (claim !== 'last_used') this.#audit?.used(account, request)
    if (claim === 'address') return
    const nowSeconds = Math.floor(this.#clock.now() / 1000)
    const write = this.#store
      .touchLastUsed(account.id, nowSeconds, from)
      .catch((error: unknown) => {
        this.#logger.warn({ err: error, account_id: account.id }, 'could not record last_used_at')
      })
    this.#pendingWrites.add(write)
    void write.finally(() => this.#pendingWrites.delete(write))
  }
}
