import { randomUUID } from 'node:crypto'
import type { Clock } from '../clock.js'
import type { NewAuditEvent } from './audit-event.js'
import type { IncomingHttpHeaders } from 'node:http'
import type { RequestClient } from '../inbound/inbound-request.js'
import { clientClass, type ClientClass } from './client-class.js'

export type RefusalReason = 'unknown' | 'revoked' | 'expired'

/** What the audit takes from a request: its client, its id and its User-Agent header. */
export type AuditedRequest = Pick<RequestClient, 'clientAddress' | 'requestId'> & {
  readonly headers: IncomingHttpHeaders
}

/** Who presented the first token of a window, as the access log names the request. */
interface RefusedRequest {
  readonly clientAddress: string
  readonly requestId: string
  readonly clientClass: ClientClass
}

interface OpenTally {
  /** Monotonic ms of the first refusal. */
  readonly openedAt: number
  /** Wall-clock ms of the first and the latest refusal. */
  readonly firstAt: number
  lastAt: number
  count: number
  readonly reason: RefusalReason
  readonly account: { readonly id: string; readonly name: string } | undefined
  readonly request: RefusedRequest
}

interface WindowKey {
  readonly reason: RefusalReason
  readonly clientAddress: string
  readonly accountId: string
  readonly key: string
}

export interface RefusedTallyOptions {
  readonly windowMs: number
  /** Most windows open at once; past it the oldest is closed early. */
  readonly maxOpen: number
  readonly clock: Clock
  readonly emit: (event: NewAuditEvent) => void
}

/**
 * Refused tokens counted per (client address, reason, account) over a window: the first refusal
 * opens it, later ones only count, and the window becomes one `refused` event when it ends. A
 * flood from one address thus writes one event per reason and account per window, whatever its
 * rate; many addresses at once are bounded by `maxOpen` and, past that, by the queue.
 */
export class RefusedTally {
  readonly #options: RefusedTallyOptions
  readonly #open = new Map<string, OpenTally>()
  /**
   * The last refusal's key and what it was made of: a flood repeats one address, reason and
   * account, and building its key (a new string, flattened and hashed for the map) cost about
   * 1,000 instructions a refusal.
   */
  #lastKey: WindowKey | undefined

  constructor(options: RefusedTallyOptions) {
    this.#options = options
  }

  get openWindows(): number {
    return this.#open.size
  }

  add(
    reason: RefusalReason,
    account: { readonly id: string; readonly name: string } | undefined,
    request: AuditedRequest,
  ): void {
    const { clock, windowMs, maxOpen } = this.#options
    const key = this.#keyOf(reason, request.clientAddress, account?.id ?? '')
    const now = clock.monotonic()
    const open = this.#open.get(key)
    if (open !== undefined && now - open.openedAt < windowMs) {
      open.count += 1
      open.lastAt = Math.floor(clock.now())
      return
    }
    if (open !== undefined) this.#close(key, open)
    else if (this.#open.size >= maxOpen) this.#closeOldest()
    const at = Math.floor(clock.now())
    const first = {
      clientAddress: request.clientAddress,
      requestId: request.requestId,
      clientClass: clientClass(request.headers),
    }
    this.#open.set(key, {
      openedAt: now,
      firstAt: at,
      lastAt: at,
      count: 1,
      reason,
      account,
      request: first,
    })
  }

  #keyOf(reason: RefusalReason, clientAddress: string, accountId: string): string {
    const last = this.#lastKey
    if (
      last !== undefined &&
      last.reason === reason &&
      last.clientAddress === clientAddress &&
      last.accountId === accountId
    ) {
      return last.key
    }
    const key = `${reason}\u0000${clientAddress}\u0000${accountId}`
    this.#lastKey = { reason, clientAddress, accountId, key }
    return key
  }

  /** Ends the windows that are over (every window when `all`). */
  closeDue(all: boolean): void {
    const now = this.#options.clock.monotonic()
    // Opened in order, so the first window still running ends the search.
    for (const [key, tally] of this.#open) {
      if (!all && now - tally.openedAt < this.#options.windowMs) return
      this.#close(key, tally)
    }
  }

  #closeOldest(): void {
    const [oldest] = this.#open
    if (oldest !== undefined) this.#close(...oldest)
  }

  #close(key: string, tally: OpenTally): void {
    this.#open.delete(key)
    this.#options.emit({
      id: randomUUID(),
      occurredAt: tally.firstAt,
      type: 'refused',
      actorKind: null,
      actor: null,
      accountId: tally.account?.id ?? null,
      accountName: tally.account?.name ?? null,
      clientAddress: tally.request.clientAddress,
      requestId: tally.request.requestId,
      details: {
        reason: tally.reason,
        count: tally.count,
        first_at: tally.firstAt,
        last_at: tally.lastAt,
        client_class: tally.request.clientClass,
      },
    })
  }
}
