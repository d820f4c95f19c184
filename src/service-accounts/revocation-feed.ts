import type { Logger } from '../logger.js'
import type { ServiceAccountMetrics } from './metrics.js'
import type { RevocationEvent, RevocationListener, Unsubscribe } from './store.js'

/** Fans revocation notifications (JSON `{id, token_hash}`) and gap signals out to listeners. */
export class RevocationFeed {
  readonly #listeners = new Set<RevocationListener>()
  readonly #gapListeners = new Set<() => void>()
  readonly #logger: Logger
  readonly #metrics: ServiceAccountMetrics | undefined

  constructor(logger: Logger, metrics?: ServiceAccountMetrics) {
    this.#logger = logger
    this.#metrics = metrics
  }

  add(listener: RevocationListener): Unsubscribe {
    this.#listeners.add(listener)
    return () => this.#listeners.delete(listener)
  }

  addGap(listener: () => void): Unsubscribe {
    this.#gapListeners.add(listener)
    return () => this.#gapListeners.delete(listener)
  }

  deliver(payload: string): void {
    const event = parseRevocation(payload)
    if (event === null) {
      this.#logger.warn('ignoring a malformed service-account revocation notification')
      return
    }
    this.#metrics?.revocationNotifications.inc()
    for (const listener of this.#listeners) this.#call(() => listener(event))
  }

  gap(): void {
    this.#logger.warn('revocation notifications resumed after an interruption')
    for (const listener of this.#gapListeners) this.#call(listener)
  }

  clear(): void {
    this.#listeners.clear()
    this.#gapListeners.clear()
  }

  #call(fn: () => void): void {
    try {
      fn()
    } catch (error) {
      this.#logger.error({ err: error }, 'service-account revocation listener failed')
    }
  }
}

export function revocationPayload(id: string, tokenHash: string): string {
  return JSON.stringify({ id, token_hash: tokenHash })
}

function parseRevocation(payload: string): RevocationEvent | null {
  try {
    const value: unknown = JSON.parse(payload)
    if (typeof value !== 'object' || value === null) return null
    const { id, token_hash: tokenHash } = value as Record<string, unknown>
    return typeof id === 'string' && typeof tokenHash === 'string' ? { id, tokenHash } : null
  } catch {
    return null
  }
}
