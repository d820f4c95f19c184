import type { IncomingMessage } from 'node:http'
import type { Duplex } from 'node:stream'
import { accessLevel } from '../access-log.js'
import { type GatewayError, toGatewayError } from '../errors.js'
import type { InboundRequest } from '../inbound/inbound-request.js'
import { identifyClient, readInbound, type InboundSettings } from '../inbound/read-inbound.js'
import type { Logger } from '../logger.js'
import type { Metrics } from '../metrics.js'
import type { UpstreamWebSockets } from '../upstream/upstream-websocket.js'
import { relayWebSockets } from '../upstream/websocket-relay.js'
import type { ConnectionWatch } from './connection-watch.js'
import { writeRawError, writeRawResponse } from './raw-response.js'
import type { UpgradeGate } from './upgrade-gate.js'
import type { AcceptPort } from './websocket-acceptor.js'
import { assertWebSocketUpgrade } from './websocket-handshake.js'
import type { WebSocketAdmission } from './websocket-limits.js'

/** An upgrade the gateway terminates itself (the workflow WebSocket protocol, for instance). */
export type LocalEndpoint = (
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  inbound: InboundRequest,
) => void

export interface UpgradeDeps {
  readonly inbound: InboundSettings
  /** Process-wide connection bounds, shared with the other config generations. */
  readonly admission: WebSocketAdmission
  /** Endpoints terminated here, by canonical path; every other upgrade is relayed. */
  readonly localEndpoints: ReadonlyMap<string, LocalEndpoint>
  readonly gate: UpgradeGate
  readonly upstream: UpstreamWebSockets
  readonly accept: AcceptPort
  /** Ends relayed connections with their credential. */
  readonly watch: ConnectionWatch
  readonly metrics: Metrics
  readonly logger: Logger
}

/**
 * Handles the server's `upgrade` event (Koa never sees upgrades): the inbound request, a
 * connection slot, then a local endpoint or the auth gate and a WebSocket to the upstream; only
 * once that is open is the client's handshake completed and frames relayed. Every refusal is an
 * HTTP response on the raw socket; the upstream sees nothing of a refused upgrade.
 */
export class UpgradeHandler {
  readonly #deps: UpgradeDeps
  /** Upgrades between their arrival and their acceptance or refusal. */
  readonly #pending = new Set<Promise<void>>()

  constructor(deps: UpgradeDeps) {
    this.#deps = deps
  }

  handle = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    socket.on('error', () => socket.destroy())
    const handling = this.#handle(req, socket, head).catch((error: unknown) =>
      this.#refuse(req, socket, toGatewayError(error)),
    )
    this.#pending.add(handling)
    void handling.finally(() => this.#pending.delete(handling))
  }

  /**
   * Resolves once every upgrade that arrived so far is accepted or refused: a generation retired
   * while a handshake is under way must still see the connection it accepts (to close it at
   * shutdown, and to end it when its credential is revoked).
   */
  async settled(): Promise<void> {
    while (this.#pending.size > 0) await Promise.all(this.#pending)
  }

  async #handle(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const deps = this.#deps
    assertWebSocketUpgrade(req)
    const client = identifyClient(req, deps.inbound.trustedProxies)
    const inbound = readInbound(req, client, 'websocket', deps.inbound)
    deps.admission.admit(inbound.clientAddress, socket)
    const local = deps.localEndpoints.get(inbound.path)
    if (local !== undefined) {
      local(req, socket, head, inbound)
      return
    }
    const admitted = await deps.gate(inbound, req)
    const outcome = await deps.upstream.open(inbound, admitted.plan, admitted.protocols, socket)
    if (outcome.kind === 'refused') {
      writeRawResponse(socket, outcome.status, outcome.body, {
        'content-type': outcome.contentType,
      })
      deps.metrics.websocketUpgrades.inc({ outcome: String(outcome.status) })
      return
    }
    const upstream = outcome.socket
    if (socket.destroyed) {
      upstream.terminate()
      return
    }
    const protocol = outcome.protocol !== '' ? outcome.protocol : admitted.fallbackProtocol
    const endsWith = admitted.plan.endsWith
    deps.accept.accept(req, socket, head, protocol, (client) => {
      relayWebSockets(client, upstream)
      if (endsWith !== undefined) deps.watch.watch(client, endsWith)
    })
  }

  #refuse(req: IncomingMessage, socket: Duplex, error: GatewayError): void {
    this.#deps.metrics.websocketUpgrades.inc({ outcome: String(error.status) })
    this.#deps.logger[accessLevel(error.status, error.reason)](
      {
        method: req.method,
        path: (req.url ?? '').split('?')[0]?.slice(0, 256),
        status: error.status,
        reason: error.reason,
        upgrade: 'websocket',
      },
      'upgrade refused',
    )
    writeRawError(socket, error)
  }
}
