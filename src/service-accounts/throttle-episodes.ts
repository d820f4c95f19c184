import { randomUUID } from 'node:crypto'
import type { Clock } from '../clock.js'
import type { AuditDetails, NewAuditEvent } from './audit-event.js'

interface Episode {
  readonly key: string
  readonly clientAddress: string
  readonly requestId: string
  /** Wall-clock and monotonic ms it began; monotonic ms it ends unless failures renew it. */
  readonly enteredAt: number
  readonly enteredMono: number
  readonly untilMono: number
}

export interface ThrottleEpisodesOptions {
  /** Most episodes tracked, as many as the throttle tracks clients. */
  readonly maxOpen: number
  readonly clock: Clock
  readonly emit: (event: NewAuditEvent) => void
}

/** How an episode ended: its window drained, it was crowded out, or the gateway stopped. */
type Ending = 'window' | 'forgotten' | 'shutdown'

/**
 * Client addresses entering and leaving the failed-lookup throttle, as `throttled` events. The
 * throttle records no failure while a key is limited, so the moment it lets the key go is known
 * when it limits it; that moment is reported as the end (by the next flush), and a key limited
 * again before then is reported as having left first.
 */
export class ThrottleEpisodes {
  readonly #options: ThrottleEpisodesOptions
  readonly #open = new Map<string, Episode>()

  constructor(options: ThrottleEpisodesOptions) {
    this.#options = options
  }

  entered(
    key: string,
    request: { readonly clientAddress: string; readonly requestId: string },
    retryAfterMs: number,
    details: AuditDetails,
  ): void {
    const { clock, maxOpen } = this.#options
    const previous = this.#open.get(key)
    if (previous !== undefined) this.#left(previous, 'window')
    else if (this.#open.size >= maxOpen) {
      const [oldest] = this.#open.values()
      if (oldest !== undefined) this.#left(oldest, 'forgotten')
    }
    const episode: Episode = {
      key,
      clientAddress: request.clientAddress,
      requestId: request.requestId,
      enteredAt: Math.floor(clock.now()),
      enteredMono: clock.monotonic(),
      untilMono: clock.monotonic() + retryAfterMs,
    }
    this.#open.set(key, episode)
    this.#options.emit(
      this.#event(episode, episode.enteredAt, { state: 'entered', throttle_key: key, ...details }),
    )
  }

  /** Reports the episodes that are over (every one when `all`: the throttle goes with the process). */
  closeDue(all: boolean): void {
    const now = this.#options.clock.monotonic()
    for (const episode of this.#open.values()) {
      if (all && now < episode.untilMono) this.#left(episode, 'shutdown')
      else if (now >= episode.untilMono) this.#left(episode, 'window')
    }
  }

  #left(episode: Episode, ending: Ending): void {
    this.#open.delete(episode.key)
    const endMono = ending === 'window' ? episode.untilMono : this.#options.clock.monotonic()
    const limitedMs = Math.max(0, Math.round(endMono - episode.enteredMono))
    this.#options.emit(
      this.#event(episode, episode.enteredAt + limitedMs, {
        state: 'left',
        throttle_key: episode.key,
        ending,
        entered_at: episode.enteredAt,
        limited_ms: limitedMs,
      }),
    )
  }

  #event(episode: Episode, occurredAt: number, details: AuditDetails): NewAuditEvent {
    return {
      id: randomUUID(),
      occurredAt,
      type: 'throttled',
      actorKind: null,
      actor: null,
      accountId: null,
      accountName: null,
      clientAddress: episode.clientAddress,
      requestId: episode.requestId,
      details,
    }
  }
}
