import type { IncomingMessage } from 'node:http'
import type { Duplex } from 'node:stream'
import { WebSocketServer, type WebSocket } from 'ws'
import type { Metrics } from '../metrics.js'
import { closeWhenIdle } from './websocket-limits.js'

/**
 * Completes a client's WebSocket handshake. The narrow interface handed to whatever accepts
 * connections: the relaying upgrade handler and the endpoints the gateway terminates itself.
 */
export interface AcceptPort {
  /** `protocol`: the subprotocol answered to the client; none when undefined. */
  accept(
    req: IncomingMessage,
    socket: Duplex,
    head: Buffer,
    protocol: string | undefined,
    onOpen: (client: WebSocket) => void,
  ): void
}

/**
 * Owns the client side of every WebSocket of one config generation: completes handshakes (one
 * port per frame-size bound), closes idle connections, counts them, and closes them all at
 * shutdown.
 */
export class WebSocketAcceptor {
  readonly #metrics: Metrics
  readonly #idleTimeoutMs: number
  readonly #open = new Set<WebSocket>()
  #closing = false

  constructor(deps: { metrics: Metrics; idleTimeoutMs: number }) {
    this.#metrics = deps.metrics
    this.#idleTimeoutMs = deps.idleTimeoutMs
  }

  /** Open client sockets (for shutdown and tests). */
  get openCount(): number {
    return this.#open.size
  }

  /** A port whose connections refuse frames above `maxPayload` (ws buffers a whole frame first). */
  port(maxPayload: number): AcceptPort {
    const selected = new WeakMap<IncomingMessage, string>()
    const server = new WebSocketServer({
      noServer: true,
      perMessageDeflate: false,
      maxPayload,
      handleProtocols: (_offered: Set<string>, req: IncomingMessage) => selected.get(req) ?? false,
    })
    return {
      accept: (req, socket, head, protocol, onOpen) => {
        if (protocol !== undefined) selected.set(req, protocol)
        server.handleUpgrade(req, socket, head, (client) => {
          this.#metrics.websocketUpgrades.inc({ outcome: 'accepted' })
          this.#track(client, socket)
          onOpen(client)
        })
      },
    }
  }

  /** Resolves once no WebSocket accepted here is open. */
  async idle(): Promise<void> {
    while (this.#open.size > 0) {
      const closing = [...this.#open].map(
        (client) => new Promise<void>((resolve) => client.once('close', () => resolve())),
      )
      await Promise.all(closing)
    }
  }

  /**
   * Closes every connection with 1001 (going away), for shutdown; one whose handshake completes
   * later is closed as it opens.
   */
  closeAll(): void {
    this.#closing = true
    for (const client of this.#open) client.close(1001, 'gateway shutting down')
  }

  #track(client: WebSocket, socket: Duplex): void {
    closeWhenIdle(client, socket, this.#idleTimeoutMs)
    if (this.#closing) client.close(1001, 'gateway shutting down')
    this.#open.add(client)
    this.#metrics.websocketConnections.inc()
    client.once('close', () => {
      this.#open.delete(client)
      this.#metrics.websocketConnections.dec()
    })
  }
}
