import type { Logger } from '../logger.js'
import { systemClock, type Clock } from '../clock.js'
import { isExpired } from './service-account-principal.js'
import type { ServiceAccountStore, Unsubscribe } from './store.js'
import { digestOfStoredHash, storedHash } from './token-format.js'

/** What hears of revocations: the verified-token cache, open WebSockets. */
export interface RevocationSubscriber {
  /** A token was revoked, on this replica or another: its digest (`credentialDigest`). */
  revoked(tokenHash: string): void
  /** The notification channel was interrupted: revocations may have been missed. */
  gap(): void
}

/** The part of the hub its subscribers need. */
export interface RevocationSource {
  subscribe(subscriber: RevocationSubscriber): Unsubscribe
  /** Whether a token (by its digest) still verifies: known, not revoked, not expired. */
  stillValid(tokenHash: string): Promise<boolean>
}

/**
 * The one feed of service-account revocations: this replica's own (from the API, at once) and
 * every other replica's (the store's notifications), and the gaps in those notifications. The
 * cache and the open WebSockets of every config generation subscribe here.
 */
export class RevocationHub implements RevocationSource {
  readonly #store: ServiceAccountStore
  readonly #logger: Logger
  readonly #clock: Clock
  readonly #subscribers = new Set<RevocationSubscriber>()
  readonly #subscriptions: Unsubscribe[] = []

  constructor(deps: { store: ServiceAccountStore; logger: Logger; clock?: Clock }) {
    this.#store = deps.store
    this.#logger = deps.logger
    this.#clock = deps.clock ?? systemClock
  }

  /** Subscribes to the store's notifications (other replicas' revocations, and gaps). */
  async start(): Promise<void> {
    this.#subscriptions.push(this.#store.onNotificationGap(() => this.#gap()))
    this.#subscriptions.push(
      await this.#store.onRevocation((event) => this.revoked(event.tokenHash)),
    )
  }

  stop(): void {
    for (const unsubscribe of this.#subscriptions.splice(0)) unsubscribe()
  }

  subscribe(subscriber: RevocationSubscriber): Unsubscribe {
    this.#subscribers.add(subscriber)
    return () => this.#subscribers.delete(subscriber)
  }

  /**
   * A revocation every subscriber must act on now (made here, or announced by another replica),
   * by the token's stored (hex) hash; subscribers hear its digest.
   */
  revoked(tokenHash: string): void {
    const digest = digestOfStoredHash(tokenHash)
    for (const subscriber of this.#subscribers) this.#call(() => subscriber.revoked(digest))
  }

  async stillValid(tokenHash: string): Promise<boolean> {
    const record = await this.#store.findByTokenHash(storedHash(tokenHash))
    return (
      record !== null &&
      record.revokedAt === null &&
      !isExpired(record.expiresAt, this.#clock.now())
    )
  }

  #gap(): void {
    for (const subscriber of this.#subscribers) this.#call(() => subscriber.gap())
  }

  #call(fn: () => void): void {
    try {
      fn()
    } catch (error) {
      this.#logger.error({ err: error }, 'service-account revocation subscriber failed')
    }
  }
}
