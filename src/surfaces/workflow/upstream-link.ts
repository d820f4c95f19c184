import type { RawData, WebSocket } from 'ws'
import type { Principal } from '../../principal.js'
import { toGatewayError } from '../../errors.js'
import type { Logger } from '../../logger.js'
import {
  closeLike,
  HIGH_WATER_BYTES,
  relayFrames,
  type FrameHook,
} from '../../upstream/websocket-relay.js'
import { toBuffer } from './frames.js'

// RFC 6455 close codes; 1014 is registered as "Bad Gateway".
const POLICY_VIOLATION = 1008
const BAD_GATEWAY = 1014

/**
 * The upstream side of one workflow WebSocket: opened on the first relayed action, with the
 * identity of the principal of that moment; a later authentication as someone else drops it
 * (the next action opens a new one). Its close ends the client connection.
 */
export class UpstreamLink {
  readonly #client: WebSocket
  readonly #open: (principal: Principal) => Promise<WebSocket>
  readonly #logger: Logger
  #connecting: Promise<WebSocket | undefined> | undefined
  #current: WebSocket | undefined
  #identity: string | undefined
  #generation = 0
  #closed = false

  constructor(
    client: WebSocket,
    open: (principal: Principal) => Promise<WebSocket>,
    logger: Logger,
  ) {
    this.#client = client
    this.#open = open
    this.#logger = logger
  }

  async send(text: string, principal: Principal): Promise<void> {
    if (this.#connecting === undefined) {
      this.#identity = identityOf(principal)
      this.#connecting = this.#connect(principal, this.#generation)
    }
    const socket = await this.#connecting
    if (socket === undefined || socket.readyState !== socket.OPEN) return
    // A slow upstream slows the reading of client frames instead of growing this buffer.
    if (socket.bufferedAmount < HIGH_WATER_BYTES) socket.send(text)
    else await new Promise<void>((resolve) => socket.send(text, () => resolve()))
  }

  /** Drops the upstream connection unless it was opened for this principal's identity. */
  keepOnlyFor(principal: Principal): void {
    if (this.#connecting === undefined || this.#identity === identityOf(principal)) return
    this.#generation++
    this.#connecting = undefined
    this.#identity = undefined
    const current = this.#current
    this.#current = undefined
    if (current !== undefined) retire(current)
  }

  /** The client went away: the upstream follows with the same code. */
  close(code: number, reason: Buffer): void {
    this.#closed = true
    const current = this.#current
    if (current !== undefined) closeLike(current, code, reason)
  }

  async #connect(principal: Principal, generation: number): Promise<WebSocket | undefined> {
    let socket: WebSocket
    try {
      socket = await this.#open(principal)
    } catch (error) {
      const failure = toGatewayError(error)
      this.#logger.warn({ reason: failure.reason, status: failure.status }, 'workflow upstream')
      if (generation !== this.#generation) return undefined
      // A refusal of the identity itself (a reserved X-User-ID) is the client's doing.
      if (failure.status === 403) this.#client.close(POLICY_VIOLATION, failure.message)
      else this.#client.close(BAD_GATEWAY, 'upstream unavailable')
      return undefined
    }
    if (this.#closed || generation !== this.#generation) {
      retire(socket)
      return undefined
    }
    this.#current = socket
    // The client already had the gateway's `connected` greeting: the upstream's is dropped.
    relayFrames(socket, this.#client, skipGreeting())
    socket.on('close', (code: number, reason: Buffer) => {
      if (this.#current === socket) closeLike(this.#client, code, reason)
    })
    socket.on('error', () => socket.terminate())
    return socket
  }
}

/** Drops the upstream's first frame when it is its `connected` greeting. */
function skipGreeting(): FrameHook {
  let greeted = false
  return (data: RawData, isBinary: boolean) => {
    if (greeted) return true
    greeted = true
    return isBinary || !isConnectedGreeting(data)
  }
}

function isConnectedGreeting(data: RawData): boolean {
  try {
    const parsed: unknown = JSON.parse(toBuffer(data).toString('utf8'))
    return (
      typeof parsed === 'object' &&
      parsed !== null &&
      (parsed as Record<string, unknown>)['event'] === 'connected'
    )
  } catch {
    return false
  }
}

function identityOf(principal: Principal): string {
  return JSON.stringify([principal.kind, principal.userId])
}

function retire(socket: WebSocket): void {
  socket.removeAllListeners('message')
  socket.on('error', () => undefined)
  socket.close(1000)
}
