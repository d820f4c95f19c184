import { createHash } from 'node:crypto'
import { performance } from 'node:perf_hooks'
import type { Logger } from '../../../logger.js'
import type { Metrics, RemoteJwksStatus } from '../../../metrics.js'
import type { Clock } from '../../../clock.js'
import { parseJson } from '../json-document.js'
import type { JwtAlgorithm } from '../key-fit.js'
import { importJwks, type JwksKeys, type VerificationKey } from '../key-set.js'
import { KeyFetchError, type FetchOutcome, type FetchSuccess } from './fetch-errors.js'
import {
  boundedLifetime,
  refreshDelaySeconds,
  retryDelaySeconds,
  type RefreshBounds,
} from './freshness.js'
import type { FetchedKeySet, KeySetFetcher } from './key-set-fetcher.js'
import type { Timers } from '../../../timers.js'

export type RemoteJwksTrigger = 'startup' | 'refresh' | 'retry' | 'unknown_kid' | 'signal'

/**
 * loading: before the first fetch ended. fresh: the last fetch succeeded. stale: fetches fail and
 * the last good key set is served. unavailable: no key set to serve (never loaded, or dropped past
 * `jwks_max_stale_seconds`).
 */
export type RemoteJwksState = 'loading' | 'fresh' | 'stale' | 'unavailable'

export interface RemoteJwksSettings {
  /** The JWKS URL or the issuer, for logs. */
  readonly endpoint: string
  readonly algorithm: JwtAlgorithm
  /** The `iss` a token verified with these keys must carry (auth.oidc_issuer). */
  readonly issuer: string | undefined
  readonly bounds: RefreshBounds
  readonly maxStaleSeconds: number
  readonly graceSeconds: number
  readonly cooldownSeconds: number
  readonly maxKeys: number
}

export interface RemoteJwksOptions {
  readonly settings: RemoteJwksSettings
  /** Identifies the settings, so a reload with the same ones can share this key set. */
  readonly key: string
  readonly fetcher: KeySetFetcher
  readonly logger: Logger
  readonly metrics: Metrics | undefined
  readonly clock: Clock
  readonly timers: Timers
}

/** Why no remote key set can be used, for the 503 answer. */
export interface Unavailability {
  readonly everLoaded: boolean
  readonly retryAfterSeconds: number
}

export interface RemoteJwksHealth {
  readonly ready: boolean
  readonly detail: string
}

/** One confirmed JWKS document and how long its provider said it stays fresh. */
interface Confirmed {
  readonly keys: JwksKeys
  readonly digest: string
  readonly etag: string | undefined
  readonly confirmedAt: number
  readonly lifetimeSeconds: number
}

/**
 * The identity provider's key set, fetched and kept fresh: refreshed in the background before its
 * lifetime (the provider's Cache-Control within the configured bounds) ends, conditionally
 * (ETag); refetched for an unknown `kid` at most once per cooldown, every concurrent caller
 * sharing one fetch. Keys that disappear stay usable for a grace period. When fetches fail, the
 * last good set is served until `maxStaleSeconds` past its lifetime, then dropped (fail closed).
 * Each change of what lookups see raises the generation (the verified-token cache follows it);
 * a confirmation of the same keys does not. One log line per state change.
 */
export class RemoteJwks {
  readonly key: string
  readonly settings: RemoteJwksSettings
  readonly #fetcher: KeySetFetcher
  readonly #logger: Logger
  readonly #metrics: Metrics | undefined
  readonly #clock: Clock
  readonly #timers: Timers
  readonly #untrackMetrics: () => void
  #document: Confirmed | undefined
  /** Keys gone from the document, still usable until their deadline (epoch ms). */
  readonly #retiring = new Map<string, { readonly key: VerificationKey; readonly until: number }>()
  /** What lookups see: the document's keys and the retiring ones; undefined when none is usable. */
  #keys: JwksKeys | undefined
  #generation = 0
  /** The earliest time (epoch ms) a retiring key or the whole set expires. */
  #nextDeadline = Number.POSITIVE_INFINITY
  #state: RemoteJwksState = 'loading'
  #everLoaded = false
  #lastFailure: KeyFetchError | undefined
  #failures = 0
  /** The last document refused, so the same garbage is not parsed and logged again. */
  #rejected: { readonly digest: string; readonly failure: KeyFetchError } | undefined
  #inFlight: Promise<void> | undefined
  #lastKidFetch = Number.NEGATIVE_INFINITY
  #timer: { cancel(): void } | undefined
  #nextAttemptAt: number | undefined
  #refs = 1
  #closed = false

  private constructor(options: RemoteJwksOptions) {
    this.key = options.key
    this.settings = options.settings
    this.#fetcher = options.fetcher
    this.#logger = options.logger
    this.#metrics = options.metrics
    this.#clock = options.clock
    this.#timers = options.timers
    this.#untrackMetrics =
      options.metrics?.trackRemoteJwks(() => this.status(this.#clock.now())) ?? (() => undefined)
  }

  /** Creates the key set and waits for the first fetch; a failed one leaves it unavailable. */
  static async start(options: RemoteJwksOptions): Promise<RemoteJwks> {
    const remote = new RemoteJwks(options)
    await remote.refresh('startup')
    return remote
  }

  /** Increases whenever what lookups see changes; called per request, so it is a comparison. */
  generationAt(now: number): number {
    if (now >= this.#nextDeadline) this.#expire(now)
    return this.#generation
  }

  /** The usable keys at `now`, or undefined when there are none to trust. */
  keysAt(now: number): JwksKeys | undefined {
    if (now >= this.#nextDeadline) this.#expire(now)
    return this.#keys
  }

  /** Why there is no usable key set, or undefined when there is one. */
  unavailability(now: number): Unavailability | undefined {
    if (this.keysAt(now) !== undefined) return undefined
    const next = this.#nextAttemptAt ?? now
    return {
      everLoaded: this.#everLoaded,
      retryAfterSeconds: Math.max(1, Math.ceil((next - now) / 1000)),
    }
  }

  /**
   * For a `kid` no source knows (or while there is no usable set): joins a fetch in progress, else
   * fetches unless the last such fetch was within the cooldown.
   */
  async refreshForUnknownKid(now: number): Promise<void> {
    if (this.#inFlight !== undefined) return this.#inFlight
    if (now - this.#lastKidFetch < this.settings.cooldownSeconds * 1000) return
    this.#lastKidFetch = now
    return this.refresh('unknown_kid')
  }

  /** Fetches now, or joins the fetch in progress. Never rejects: a failure is state, logs, metrics. */
  refresh(trigger: RemoteJwksTrigger): Promise<void> {
    if (this.#inFlight !== undefined) return this.#inFlight
    if (this.#closed) return Promise.resolve()
    this.#timer?.cancel()
    const run = this.#attempt(trigger).finally(() => {
      this.#inFlight = undefined
      this.#scheduleNext()
    })
    this.#inFlight = run
    return run
  }

  /** For the metrics: state, usable keys, and seconds since the provider last confirmed the set. */
  status(now: number): RemoteJwksStatus {
    const keys = this.keysAt(now)
    const state = this.#state === 'loading' ? 'unavailable' : this.#state
    const document = this.#document
    return {
      state,
      keys: keys?.count ?? 0,
      ageSeconds: document === undefined ? undefined : (now - document.confirmedAt) / 1000,
    }
  }

  /** For /readyz: not ready only while no key set can be used. */
  health(now: number): RemoteJwksHealth {
    const keys = this.keysAt(now)
    const failure = this.#lastFailure === undefined ? '' : ` (${this.#lastFailure.outcome})`
    const document = this.#document
    if (keys !== undefined && document !== undefined && this.#state !== 'stale') {
      return { ready: true, detail: 'ok' }
    }
    if (keys !== undefined && document !== undefined) {
      const age = Math.round((now - document.confirmedAt) / 1000)
      const left = Math.max(0, Math.round((this.#staleDeadline(document) - now) / 1000))
      return {
        ready: true,
        detail: `stale: fetches fail${failure}; serving the key set confirmed ${age} s ago for up to ${left} s more`,
      }
    }
    return {
      ready: false,
      detail: this.#everLoaded
        ? `unavailable: the key set is past auth.jwks_max_stale_seconds and fetches fail${failure}`
        : `unavailable: no key set loaded yet${failure === '' ? '' : `; fetches fail${failure}`}`,
    }
  }

  /** Shares this key set with another verifier (a reload with the same settings). */
  retain(): this {
    this.#refs += 1
    return this
  }

  /** Drops one share; the last one stops refreshing and closes the connections. */
  release(): void {
    this.#refs -= 1
    if (this.#refs > 0 || this.#closed) return
    this.#closed = true
    this.#timer?.cancel()
    this.#untrackMetrics()
    this.#fetcher.close().catch(() => undefined)
  }

  async #attempt(trigger: RemoteJwksTrigger): Promise<void> {
    const startedAt = performance.now()
    let outcome: FetchOutcome
    try {
      const fetched = await this.#fetcher.fetch(this.#document?.etag)
      if (this.#closed) return
      outcome = await this.#apply(fetched, this.#clock.now())
      this.#succeeded()
    } catch (error) {
      if (this.#closed) return
      const failure =
        error instanceof KeyFetchError
          ? error
          : new KeyFetchError('invalid', `${this.settings.endpoint}: ${String(error)}`)
      outcome = failure.outcome
      this.#failed(failure, this.#clock.now())
    }
    const seconds = (performance.now() - startedAt) / 1000
    this.#metrics?.jwksFetches.inc({ trigger, outcome })
    this.#metrics?.jwksFetchDuration.observe(
      {
        result:
          outcome === 'updated' || outcome === 'unchanged' || outcome === 'not_modified'
            ? 'ok'
            : 'failed',
      },
      seconds,
    )
  }

  async #apply(fetched: FetchedKeySet, now: number): Promise<FetchSuccess> {
    const document = this.#document
    const lifetimeSeconds = boundedLifetime(fetched.lifetimeSeconds, this.settings.bounds)
    if (fetched.kind === 'not_modified') {
      if (document === undefined) {
        throw new KeyFetchError(
          'invalid',
          `${this.settings.endpoint} answered 304 Not Modified, but no key set is held`,
        )
      }
      this.#confirm({ ...document, confirmedAt: now, lifetimeSeconds })
      return 'not_modified'
    }
    const digest = createHash('sha256').update(fetched.text).digest('hex')
    // eslint-disable-next-line no-restricted-syntax -- digests of two public key sets the identity provider published; no client input
    if (document !== undefined && document.digest === digest) {
      this.#confirm({ ...document, etag: fetched.etag, confirmedAt: now, lifetimeSeconds })
      return 'unchanged'
    }
    const keys = await this.#import(fetched.text, digest)
    const previous = document?.keys
    if (previous !== undefined && this.settings.graceSeconds > 0) {
      for (const [kid, key] of previous.byKid) {
        if (!keys.byKid.has(kid)) {
          this.#retiring.set(kid, { key, until: now + this.settings.graceSeconds * 1000 })
        }
      }
    }
    for (const kid of keys.byKid.keys()) this.#retiring.delete(kid)
    this.#document = { keys, digest, etag: fetched.etag, confirmedAt: now, lifetimeSeconds }
    this.#publish()
    if (previous !== undefined) {
      this.#logger.info(
        {
          jwks: this.settings.endpoint,
          keys: keys.count,
          added: [...keys.byKid.keys()].filter((kid) => !previous.byKid.has(kid)),
          removed: [...previous.byKid.keys()].filter((kid) => !keys.byKid.has(kid)),
          grace_seconds: this.settings.graceSeconds,
        },
        'remote JWKS updated',
      )
    }
    return 'updated'
  }

  /** Parses and imports a JWKS document; a document that cannot serve is a failed fetch. */
  async #import(text: string, digest: string): Promise<JwksKeys> {
    // eslint-disable-next-line no-restricted-syntax -- digests of two public key sets the identity provider published; no client input
    if (this.#rejected?.digest === digest) throw this.#rejected.failure
    try {
      return await this.#importNew(text)
    } catch (error) {
      if (error instanceof KeyFetchError) this.#rejected = { digest, failure: error }
      throw error
    }
  }

  async #importNew(text: string): Promise<JwksKeys> {
    const endpoint = this.settings.endpoint
    const parsed = parseJson(text)
    if ('problem' in parsed) {
      throw new KeyFetchError(
        'invalid',
        `Invalid JSON in the JWKS of ${endpoint}: ${parsed.problem}`,
      )
    }
    const entries = (parsed.value as { keys?: unknown } | null)?.keys
    if (
      typeof parsed.value !== 'object' ||
      parsed.value === null ||
      Array.isArray(parsed.value) ||
      !Array.isArray(entries)
    ) {
      throw new KeyFetchError('invalid', `the JWKS of ${endpoint} has no "keys" array`)
    }
    if (entries.length > this.settings.maxKeys) {
      throw new KeyFetchError(
        'invalid',
        `the JWKS of ${endpoint} has ${entries.length} keys, more than auth.jwks_max_keys (${this.settings.maxKeys})`,
      )
    }
    const keys = await importJwks(parsed.value, this.settings.algorithm, (details, message) => {
      this.#logger.warn({ jwks: endpoint, ...details }, message)
    })
    if (keys.count === 0) {
      throw new KeyFetchError(
        'invalid',
        `the JWKS of ${endpoint} has no key usable for ${this.settings.algorithm}`,
      )
    }
    return keys
  }

  /** The same keys, confirmed again: a new lifetime, no new generation. */
  #confirm(document: Confirmed): void {
    this.#document = document
    if (this.#keys === undefined) this.#publish()
    else this.#nextDeadline = this.#deadline()
  }

  #succeeded(): void {
    this.#failures = 0
    this.#lastFailure = undefined
    const before = this.#state
    this.#state = 'fresh'
    const wasLoaded = this.#everLoaded
    this.#everLoaded = true
    if (before === 'fresh') return
    const details = { jwks: this.settings.endpoint, keys: this.#keys?.count ?? 0 }
    if (before === 'stale') {
      this.#logger.info(details, 'remote JWKS fetched again; the key set is fresh')
    } else {
      this.#logger.info(details, wasLoaded ? 'remote JWKS loaded again' : 'remote JWKS loaded')
    }
  }

  #failed(failure: KeyFetchError, now: number): void {
    this.#failures += 1
    this.#lastFailure = failure
    const usable = this.keysAt(now) !== undefined
    const before = this.#state
    this.#state = usable ? 'stale' : 'unavailable'
    const details = {
      jwks: this.settings.endpoint,
      outcome: failure.outcome,
      error: failure.message,
    }
    if (before === this.#state) {
      this.#logger.debug(details, 'remote JWKS fetch failed again')
    } else if (usable) {
      const document = this.#document as Confirmed
      this.#logger.warn(
        {
          ...details,
          usable_for_seconds: Math.round((this.#staleDeadline(document) - now) / 1000),
        },
        'remote JWKS fetch failed; serving the last good key set',
      )
    } else {
      this.#logger.error(
        details,
        'remote JWKS could not be loaded; JWTs that need it get 503 until a fetch succeeds',
      )
    }
  }

  /** Drops retiring keys past their grace and a set past its stale bound. */
  #expire(now: number): void {
    let changed = false
    for (const [kid, entry] of this.#retiring) {
      if (entry.until <= now) {
        this.#retiring.delete(kid)
        changed = true
      }
    }
    const document = this.#document
    if (document !== undefined && now >= this.#staleDeadline(document)) {
      this.#document = undefined
      this.#retiring.clear()
      changed = true
      this.#state = 'unavailable'
      this.#logger.error(
        {
          jwks: this.settings.endpoint,
          age_seconds: Math.round((now - document.confirmedAt) / 1000),
          error: this.#lastFailure?.message,
        },
        'remote JWKS: the last good key set is past auth.jwks_max_stale_seconds and was dropped; JWTs that need it get 503 until a fetch succeeds',
      )
    }
    if (changed) this.#publish()
    else this.#nextDeadline = this.#deadline()
  }

  /** Rebuilds what lookups see and raises the generation. */
  #publish(): void {
    const document = this.#document
    if (document === undefined) {
      this.#keys = undefined
    } else if (this.#retiring.size === 0) {
      this.#keys = document.keys
    } else {
      const byKid = new Map<string, VerificationKey>()
      for (const [kid, entry] of this.#retiring) byKid.set(kid, entry.key)
      for (const [kid, key] of document.keys.byKid) byKid.set(kid, key)
      const fallback = document.keys.fallback
      this.#keys = Object.freeze({
        byKid,
        fallback,
        count: byKid.size + (fallback === undefined ? 0 : 1),
      })
    }
    this.#generation += 1
    this.#nextDeadline = this.#deadline()
  }

  #deadline(): number {
    let deadline =
      this.#document === undefined ? Number.POSITIVE_INFINITY : this.#staleDeadline(this.#document)
    for (const entry of this.#retiring.values()) deadline = Math.min(deadline, entry.until)
    return deadline
  }

  #staleDeadline(document: Confirmed): number {
    return document.confirmedAt + (document.lifetimeSeconds + this.settings.maxStaleSeconds) * 1000
  }

  #scheduleNext(): void {
    if (this.#closed) return
    this.#timer?.cancel()
    const now = this.#clock.now()
    const document = this.#document
    const bounds = this.settings.bounds
    let at: number
    let trigger: RemoteJwksTrigger
    if (this.#failures > 0 || document === undefined) {
      at = now + retryDelaySeconds(Math.max(this.#failures, 1), bounds) * 1000
      trigger = 'retry'
    } else {
      at = document.confirmedAt + refreshDelaySeconds(document.lifetimeSeconds, bounds) * 1000
      trigger = 'refresh'
    }
    const delay = Math.max(0, at - now)
    this.#nextAttemptAt = now + delay
    this.#timer = this.#timers.set(() => void this.refresh(trigger), delay)
  }
}
