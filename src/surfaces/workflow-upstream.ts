import type { WebSocket } from 'ws'
import type { Principal } from '../auth/principal.js'
import { toGatewayError } from '../errors.js'
import { closeLike } from '../http/websocket-relay.js'
import type { Logger } from '../logger.js'
import { relayFromUpstream } from './upstream-socket.js'

// RFC 6455 close codes; 1014 is registered as "Bad Gateway".
const POLICY_VIOLATION = 1008
const BAD_GATEWAY = 1014
const HIGH_WATER = 1024 * 1024

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
    if (socket.bufferedAmount < HIGH_WATER) socket.send(text)
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
    relayFromUpstream(socket, this.#client)
    socket.on('close', (code: number, reason: Buffer) => {
      if (this.#current === socket) closeLike(this.#client, code, reason)
    })
    socket.on('error', () => socket.terminate())
    return socket
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
