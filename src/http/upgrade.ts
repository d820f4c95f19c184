import type { IncomingMessage } from 'node:http'
import type { Duplex } from 'node:stream'
import { WebSocket, WebSocketServer } from 'ws'
import type { InboundRequest } from '../inbound/inbound-request.js'
import type { Config } from '../config/schema.js'
import { type GatewayError, toGatewayError } from '../errors.js'
import type { Logger } from '../logger.js'
import type { Metrics } from '../metrics.js'
import type { TrustedProxies } from '../inbound/client-address.js'
import { identifyClient, readInbound } from '../inbound/read-inbound.js'
import { writeRawError } from './raw-response.js'
import {
  buildUpstreamHeaders,
  type HeaderAdjustments,
  type UpstreamHeaderOptions,
} from './upstream-headers.js'
import { relayWebSockets } from './websocket-relay.js'
import { closeWhenIdle, type WebSocketAdmission } from './websocket-limits.js'
import {
  acceptNoSubprotocol,
  assertWebSocketUpgrade,
  connectOutcome,
  relayRefusal,
  toHeaderObject,
} from './websocket-handshake.js'

/** What the auth hook decides for an upgrade it lets through. */
export interface UpgradeAdmission {
  readonly headers?: HeaderAdjustments
  /** A rewritten query string (user_id pinning); the client's when undefined. */
  readonly query?: string | undefined
  /** Subprotocols to offer upstream: the client's, minus any that carried a credential. */
  readonly protocols: readonly string[]
  /** Answered to the client when the upstream selects none (`bearer`, when the token came that way). */
  readonly fallbackProtocol?: string
  /** Runs once the client socket is open, e.g. to close it when its credential is revoked. */
  readonly onOpen?: (client: WebSocket) => void
}

/** Authenticates and authorizes an upgrade; throws a GatewayError to refuse it on the raw socket. */
export type UpgradeGate = (
  inbound: InboundRequest,
  req: IncomingMessage,
) => Promise<UpgradeAdmission>

/** An upgrade the gateway terminates itself (the workflow WebSocket protocol, for instance). */
export type LocalUpgradeHandler = (
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  inbound: InboundRequest,
) => void

export interface UpgradeDeps {
  readonly config: Config
  readonly logger: Logger
  readonly metrics: Metrics
  readonly trustedProxies: TrustedProxies
  readonly headerOptions: UpstreamHeaderOptions
  readonly gate: UpgradeGate
  readonly localHandlers?: ReadonlyMap<string, LocalUpgradeHandler>
  /** Process-wide connection bounds, shared with the other config generations. */
  readonly admission: WebSocketAdmission
}

/**
 * Handles the server's `upgrade` event (Koa never sees upgrades): canonical path, the auth gate,
 * then a WebSocket to the upstream; only once that is open is the client's handshake completed and
 * frames relayed. Every refusal is an HTTP response on the raw socket; the upstream sees nothing
 * of a refused upgrade.
 */
export class UpgradeHandler {
  readonly #deps: UpgradeDeps
  readonly #server: WebSocketServer
  readonly #localServer: WebSocketServer
  readonly #selected = new WeakMap<IncomingMessage, string>()
  readonly #open = new Set<WebSocket>()
  readonly #upstreamBase: string

  constructor(deps: UpgradeDeps) {
    this.#deps = deps
    // ws buffers a whole frame before any handler sees it; its default bound is 100 MiB.
    const serverOptions = (maxPayload: number) => ({
      noServer: true,
      perMessageDeflate: false,
      maxPayload,
      handleProtocols: (_offered: Set<string>, req: IncomingMessage) =>
        this.#selected.get(req) ?? false,
    })
    this.#server = new WebSocketServer(
      serverOptions(deps.config.server.max_websocket_message_bytes),
    )
    this.#localServer = new WebSocketServer(
      serverOptions(deps.config.interfaces.workflow_websocket.max_message_bytes),
    )
    const url = new URL(deps.config.upstream.url)
    this.#upstreamBase = `${url.protocol === 'https:' ? 'wss' : 'ws'}://${url.host}`
  }

  /** Open client-side sockets (for shutdown and tests). */
  get openCount(): number {
    return this.#open.size
  }

  handle = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    socket.on('error', () => socket.destroy())
    this.#handle(req, socket, head).catch((error: unknown) =>
      this.#refuse(req, socket, toGatewayError(error)),
    )
  }

  /** Resolves once no WebSocket accepted by this handler is open. */
  async idle(): Promise<void> {
    while (this.#open.size > 0) {
      const closing = [...this.#open].map(
        (client) => new Promise<void>((resolve) => client.once('close', () => resolve())),
      )
      await Promise.all(closing)
    }
  }

  /** Closes every relayed connection with 1001 (going away), for shutdown. */
  closeAll(): void {
    for (const client of this.#open) client.close(1001, 'gateway shutting down')
  }

  /** Accepts a handshake for a locally terminated endpoint and tracks it for shutdown. */
  acceptLocal(
    req: IncomingMessage,
    socket: Duplex,
    head: Buffer,
    protocol: string | undefined,
    onOpen: (client: WebSocket) => void,
  ): void {
    if (protocol !== undefined) this.#selected.set(req, protocol)
    this.#localServer.handleUpgrade(req, socket, head, (client) => {
      this.#deps.metrics.websocketUpgrades.inc({ outcome: 'accepted' })
      this.#track(client, socket)
      onOpen(client)
    })
  }

  async #handle(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const { config, trustedProxies, metrics } = this.#deps
    assertWebSocketUpgrade(req)
    const inbound = readInbound(req, identifyClient(req, trustedProxies), 'websocket', {
      trustedProxies,
      maxHeadersCount: config.server.max_headers_count,
    })
    this.#deps.admission.admit(inbound.clientAddress, socket)
    const local = this.#deps.localHandlers?.get(inbound.path)
    if (local !== undefined) {
      local(req, socket, head, inbound)
      return
    }
    const admission = await this.#deps.gate(inbound, req)
    const query = admission.query ?? inbound.query
    const headers = buildUpstreamHeaders(
      req.rawHeaders,
      this.#deps.headerOptions,
      inbound,
      admission.headers,
    )
    const upstream = new WebSocket(
      `${this.#upstreamBase}${inbound.forwardPath}${query === '' ? '' : `?${query}`}`,
      [...admission.protocols],
      {
        headers: toHeaderObject(headers),
        perMessageDeflate: false,
        followRedirects: false,
        handshakeTimeout: config.upstream.connect_timeout_ms,
      },
    )
    const choseNone = acceptNoSubprotocol(upstream, admission.protocols)
    const abandon = (): void => upstream.terminate()
    socket.once('close', abandon)
    const outcome = await connectOutcome(upstream)
    socket.off('close', abandon)
    if (outcome.kind === 'refused') {
      // Terminating before the body is read would abort the response and lose it.
      relayRefusal(socket, outcome.response, () => upstream.terminate())
      metrics.websocketUpgrades.inc({ outcome: String(outcome.response.statusCode ?? 502) })
      return
    }
    if (outcome.kind === 'failed') throw outcome.error
    if (socket.destroyed) {
      upstream.terminate()
      return
    }
    const upstreamChoice = choseNone() ? '' : upstream.protocol
    const selected = upstreamChoice !== '' ? upstreamChoice : admission.fallbackProtocol
    if (selected !== undefined) this.#selected.set(req, selected)
    this.#server.handleUpgrade(req, socket, head, (client) => {
      metrics.websocketUpgrades.inc({ outcome: 'accepted' })
      this.#track(client, socket)
      relayWebSockets(client, upstream, () => undefined)
      admission.onOpen?.(client)
    })
  }

  #track(client: WebSocket, socket: Duplex): void {
    closeWhenIdle(client, socket, this.#deps.config.server.websocket_idle_timeout_ms)
    this.#open.add(client)
    this.#deps.metrics.websocketConnections.inc()
    client.once('close', () => {
      this.#open.delete(client)
      this.#deps.metrics.websocketConnections.dec()
    })
  }

  #refuse(req: IncomingMessage, socket: Duplex, error: GatewayError): void {
    this.#deps.metrics.websocketUpgrades.inc({ outcome: String(error.status) })
    this.#deps.logger.info(
      {
        method: req.method,
        path: (req.url ?? '').split('?')[0]?.slice(0, 256),
        status: error.status,
        reason: error.reason ?? error.code.toLowerCase(),
        upgrade: 'websocket',
      },
      'upgrade refused',
    )
    writeRawError(socket, error)
  }
}
