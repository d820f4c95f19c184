import type { WebSocket } from 'ws'
import type { Principal } from '../principal.js'
import type { RevocationSource, RevocationSubscriber } from '../service-accounts/revocation-hub.js'
import type { Unsubscribe } from '../service-accounts/store.js'

/** Close code when a connection's credential expires or is revoked (RFC 6455 §7.4.1: policy violation). */
export const CREDENTIAL_ENDED_CLOSE_CODE = 1008

/** Something that closes a connection when its credential ends (expiry, revocation). */
export interface ConnectionWatch {
  /** Starts watching; the returned function stops it (closing the socket stops it too). */
  watch(client: WebSocket, principal: Principal): () => void
}

// setTimeout fires at once beyond 2^31-1 ms (about 24.8 days); longer waits are chained.
const MAX_TIMER_MS = 2_147_483_647

/** A connection does not outlive its credential: closed with 1008 when `expiresAt` passes. */
export function closeAtExpiry(
  client: WebSocket,
  principal: Principal,
  now: () => number = Date.now,
): () => void {
  const expiresAt = principal.expiresAt
  if (expiresAt === null) return () => undefined
  let timer: NodeJS.Timeout | undefined
  const arm = (): void => {
    const remaining = expiresAt * 1000 - now()
    if (remaining <= 0) {
      client.close(CREDENTIAL_ENDED_CLOSE_CODE, 'credential expired')
      return
    }
    timer = setTimeout(arm, Math.min(remaining, MAX_TIMER_MS))
    timer.unref()
  }
  const stop = (): void => clearTimeout(timer)
  client.once('close', stop)
  arm()
  return () => {
    stop()
    client.off('close', stop)
  }
}

/**
 * Long-lived connections end with their credential: at its expiry (JWT `exp`, account expiry)
 * and at its revocation, announced by any replica. Both close with 1008 (policy violation).
 */
export class CredentialWatch implements ConnectionWatch, RevocationSubscriber {
  readonly #byHash = new Map<string, Set<WebSocket>>()
  readonly #now: () => number
  readonly #revocations: RevocationSource | undefined
  readonly #unsubscribe: Unsubscribe | undefined

  /** Without `revocations` (service accounts off), connections end at expiry only. */
  constructor(options: { now?: () => number; revocations?: RevocationSource | undefined } = {}) {
    this.#now = options.now ?? Date.now
    this.#revocations = options.revocations
    this.#unsubscribe = options.revocations?.subscribe(this)
  }

  /** Stops hearing of revocations (the generation retired; its connections have closed). */
  close(): void {
    this.#unsubscribe?.()
  }

  /** Connections currently watched for revocation. */
  get size(): number {
    let count = 0
    for (const clients of this.#byHash.values()) count += clients.size
    return count
  }

  watch(client: WebSocket, principal: Principal): () => void {
    const stopExpiry = closeAtExpiry(client, principal, this.#now)
    // Only a service-account token can be revoked: the store knows no other credential, so a
    // recheck after a notification gap would take a JWT's hash for a revoked token.
    const hash = principal.kind === 'service_account' ? principal.credentialHash : undefined
    if (hash === undefined) return stopExpiry
    let clients = this.#byHash.get(hash)
    if (clients === undefined) this.#byHash.set(hash, (clients = new Set()))
    clients.add(client)
    const stop = (): void => {
      stopExpiry()
      client.off('close', stop)
      clients.delete(client)
      if (clients.size === 0 && this.#byHash.get(hash) === clients) this.#byHash.delete(hash)
    }
    client.once('close', stop)
    return stop
  }

  /** Closes every connection authenticated with this token; returns how many. */
  revoked(tokenHash: string): number {
    const clients = this.#byHash.get(tokenHash)
    if (clients === undefined) return 0
    this.#byHash.delete(tokenHash)
    const closing = [...clients]
    for (const client of closing) client.close(CREDENTIAL_ENDED_CLOSE_CODE, 'credential revoked')
    return closing.length
  }

  gap(): void {
    void this.recheck()
  }

  /**
   * After the notification channel was interrupted, revocations may have been missed: every
   * watched token is looked up again. A lookup that fails keeps the connection (the cache TTL
   * bounds the REST side the same way).
   */
  async recheck(): Promise<void> {
    const revocations = this.#revocations
    if (revocations === undefined) return
    await Promise.all(
      [...this.#byHash.keys()].map(async (hash) => {
        const valid = await revocations.stillValid(hash).catch(() => true)
        if (!valid) this.revoked(hash)
      }),
    )
  }
}
