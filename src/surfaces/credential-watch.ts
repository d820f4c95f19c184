import type { WebSocket } from 'ws'
import type { Principal } from '../auth/principal.js'
import {
  closeAtExpiry,
  CREDENTIAL_ENDED_CLOSE_CODE,
  type ConnectionWatch,
} from '../http/upgrade-gate.js'

/** Whether a service-account token (by hash) still verifies; used after missed notifications. */
export type StillValid = (tokenHash: string) => Promise<boolean>

/**
 * Long-lived connections end with their credential: at its expiry (JWT `exp`, account expiry)
 * and at its revocation, announced by any replica. Both close with 1008 (policy violation).
 */
export class CredentialWatch implements ConnectionWatch {
  readonly #byHash = new Map<string, Set<WebSocket>>()
  readonly #now: () => number
  readonly #stillValid: StillValid | undefined

  constructor(options: { now?: () => number; stillValid?: StillValid } = {}) {
    this.#now = options.now ?? Date.now
    this.#stillValid = options.stillValid
  }

  /** Connections currently watched for revocation. */
  get size(): number {
    let count = 0
    for (const clients of this.#byHash.values()) count += clients.size
    return count
  }

  watch(client: WebSocket, principal: Principal): () => void {
    const stopExpiry = closeAtExpiry(client, principal, this.#now)
    const hash = principal.credentialHash
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

  /**
   * After the notification channel was interrupted, revocations may have been missed: every
   * watched token is looked up again. A lookup that fails keeps the connection (the cache TTL
   * bounds the REST side the same way).
   */
  async recheck(): Promise<void> {
    const stillValid = this.#stillValid
    if (stillValid === undefined) return
    await Promise.all(
      [...this.#byHash.keys()].map(async (hash) => {
        const valid = await stillValid(hash).catch(() => true)
        if (!valid) this.revoked(hash)
      }),
    )
  }
}
