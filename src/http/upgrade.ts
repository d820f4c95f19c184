import type { IncomingMessage } from 'node:http'
import type { Duplex } from 'node:stream'
import { admitted, type Decision } from '../auth/decision.js'
import { type GatewayError, toGatewayError } from '../errors.js'
import { identifyClient, readInbound, type InboundSettings } from '../inbound/read-inbound.js'
import type { Metrics } from '../metrics.js'
import type { UpstreamWebSockets } from '../upstream/upstream-websocket.js'
import { relayWebSockets } from '../upstream/websocket-relay.js'
import type { ConnectionWatch } from './connection-watch.js'
import type { Exchange, ExchangeRequest } from './exchange.js'
import { writeRawError, writeRawResponse } from './raw-response.js'
import { decisionRouteLabel } from './state.js'
import { UpgradeObservation, type UpgradeObserverDeps } from './upgrade-observation.js'
import type { AcceptPort } from './websocket-acceptor.js'
import { assertWebSocketUpgrade } from './websocket-handshake.js'
import type { WebSocketAdmission } from './websocket-limits.js'

/** An upgrade the gateway terminates itself (the workflow WebSocket protocol, for instance). */
export type LocalEndpoint = (
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  request: ExchangeRequest,
  observation: UpgradeObservation,
) => void

export interface UpgradeDeps extends UpgradeObserverDeps {
  readonly inbound: InboundSettings
  /** Process-wide connection bounds, shared with the other config generations. */
  readonly admission: WebSocketAdmission
  /** Endpoints terminated here, by canonical path; every other upgrade is relayed. */
  readonly localEndpoints: ReadonlyMap<string, LocalEndpoint>
  readonly exchange: Exchange
  readonly upstream: UpstreamWebSockets
  readonly accept: AcceptPort
  /** Ends relayed connections with their credential. */
  readonly watch: ConnectionWatch
  readonly metrics: Metrics
}

/**
 * Handles the server's `upgrade` event (Koa never sees upgrades): the inbound request, a
 * connection slot, then a local endpoint or the exchange (credential, decision, plan) and a
 * WebSocket to the upstream; only once that is open is the client's handshake completed and
 * frames relayed. Every refusal is an HTTP response on the raw socket; the upstream sees nothing
 * of a refused upgrade. Each upgrade is observed as a request: in flight, one access line.
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
    const observation = new UpgradeObservation(this.#deps, req, socket)
    const handling = this.#handle(req, socket, head, observation).catch((error: unknown) =>
      refuseUpgrade(this.#deps, socket, toGatewayError(error), observation),
    )
    this.#pending.add(handling)
    void handling.finally(() => {
      observation.settled()
      this.#pending.delete(handling)
    })
  }

  /**
   * Resolves once every upgrade that arrived so far is accepted or refused: a generation retired
   * while a handshake is under way must still see the connection it accepts (to close it at
   * shutdown, and to end it when its credential is revoked).
   */
  async settled(): Promise<void> {
    while (this.#pending.size > 0) await Promise.all(this.#pending)
  }

  async #handle(
    req: IncomingMessage,
    socket: Duplex,
    head: Buffer,
    observation: UpgradeObservation,
  ): Promise<void> {
    const deps = this.#deps
    const exchange = deps.exchange
    assertWebSocketUpgrade(req)
    const client = identifyClient(req, deps.inbound.trustedProxies)
    const inbound = readInbound(req, client, 'websocket', deps.inbound)
    observation.read(inbound)
    const request: ExchangeRequest = { inbound, route: exchange.match(inbound), body: undefined }
    observation.labelled(request.route.familyLabel)
    deps.admission.admit(inbound.clientAddress, socket)
    const local = deps.localEndpoints.get(inbound.path)
    if (local !== undefined) {
      local(req, socket, head, request, observation)
      return
    }
    const offered = exchange.offered(inbound)
    const decision: Decision = await exchange.decide(request, offered)
    observation.labelled(decisionRouteLabel(decision))
    const plan = await exchange.plan(request, admitted(decision))
    const outcome = await deps.upstream.open(inbound, plan, offered.protocols, socket)
    if (outcome.kind === 'refused') {
      writeRawResponse(socket, outcome.status, outcome.body, {
        'content-type': outcome.contentType,
      })
      deps.metrics.websocketUpgrades.inc({ outcome: String(outcome.status) })
      observation.answeredUpstream(outcome.status)
      return
    }
    const upstream = outcome.socket
    if (socket.destroyed) {
      upstream.terminate()
      return
    }
    const protocol = outcome.protocol !== '' ? outcome.protocol : offered.fallbackProtocol
    const endsWith = plan.endsWith
    observation.accepted()
    deps.accept.accept(req, socket, head, protocol, (client) => {
      relayWebSockets(client, upstream)
      if (endsWith !== undefined) deps.watch.watch(client, endsWith)
    })
  }
}

/** An upgrade the gateway answers itself: counted, its access line written at close, the error written. */
export function refuseUpgrade(
  deps: { readonly metrics: Metrics },
  socket: Duplex,
  error: GatewayError,
  observation: UpgradeObservation,
): void {
  deps.metrics.websocketUpgrades.inc({ outcome: String(error.status) })
  observation.refused(error)
  writeRawError(socket, error)
}
