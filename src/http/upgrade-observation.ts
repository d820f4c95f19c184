import { newRequestId } from '../inbound/request-id.js'
import type { IncomingMessage } from 'node:http'
import type { Socket } from 'node:net'
import { performance } from 'node:perf_hooks'
import type { Duplex } from 'node:stream'
import type { AccessLog } from '../access-log.js'
import type { GatewayError } from '../errors.js'
import { normalizeAddress } from '../inbound/client-address.js'
import type { InboundRequest } from '../inbound/inbound-request.js'
import type { Metrics } from '../metrics.js'
import type { Reason } from '../reasons.js'
import type { InFlight } from './in-flight.js'
import { CLIENT_CLOSED_REQUEST } from './middleware/observe.js'

/** Where an upgrade is observed: the access log of the config in force and the in-flight count. */
export interface UpgradeObserverDeps {
  readonly metrics: Metrics
  readonly inFlight: InFlight
  /** The access log, when `logging.access_log` of the config in force is on (else warnings only). */
  readonly accessLog: AccessLog
  readonly accessLogOn: boolean
}

const SWITCHING_PROTOCOLS = 101

/**
 * One upgrade from its arrival to its socket's close, observed as an HTTP request is: in flight
 * until its handshake is answered (accepted or refused; the connection that follows is counted
 * by `portcullis_websocket_connections`, and shutdown closes it rather than waiting for it), then
 * one access line when the socket closes, with the whole connection's duration and bytes.
 */
export class UpgradeObservation {
  readonly #deps: UpgradeObserverDeps
  readonly #req: IncomingMessage
  readonly #startedAt = performance.now()
  #requestId: string | undefined
  #client: string | undefined
  #path: string | undefined
  #route = 'invalid'
  #status: number | undefined
  #reason: Reason | undefined
  #inFlight = true

  constructor(deps: UpgradeObserverDeps, req: IncomingMessage, socket: Duplex) {
    this.#deps = deps
    this.#req = req
    deps.inFlight.enter()
    socket.once('close', () => this.#closed(socket))
  }

  /** The request as the inbound adapter read it. */
  read(inbound: InboundRequest): void {
    this.#requestId = inbound.requestId
    this.#client = inbound.clientAddress
    this.#path = inbound.path
  }

  /** The bounded route label (the decision's, as for HTTP). */
  labelled(route: string): void {
    this.#route = route
  }

  /** The client's handshake was completed. */
  accepted(): void {
    this.#answered(SWITCHING_PROTOCOLS, undefined)
  }

  /** The gateway refused the upgrade on the raw socket. */
  refused(error: GatewayError): void {
    this.#answered(error.status, error.reason)
  }

  /** The upstream refused it; its answer was passed on. */
  answeredUpstream(status: number): void {
    this.#answered(status, undefined)
  }

  /** The handshake is no longer in flight, answered or not. */
  settled(): void {
    if (!this.#inFlight) return
    this.#inFlight = false
    this.#deps.inFlight.leave()
  }

  #answered(status: number, reason: Reason | undefined): void {
    this.#status ??= status
    this.#reason ??= reason
    this.settled()
  }

  #closed(socket: Duplex): void {
    this.settled()
    const net = socket as Partial<Socket>
    const gone = this.#status === undefined
    const status = this.#status ?? CLIENT_CLOSED_REQUEST
    const seconds = (performance.now() - this.#startedAt) / 1000
    this.#deps.accessLog.write(
      {
        req_id: this.#requestId ?? newRequestId(),
        method: this.#req.method ?? 'GET',
        path: this.#path ?? (this.#req.url ?? '').split('?')[0]?.slice(0, 256) ?? '',
        status,
        duration_ms: Math.round(seconds * 100_000) / 100,
        client: this.#client ?? normalizeAddress(this.#req.socket.remoteAddress ?? ''),
        route: this.#route,
        reason: gone ? 'client.gone' : this.#reason,
        upgrade: 'websocket',
        bytes_in: net.bytesRead ?? 0,
        bytes_out: net.bytesWritten ?? 0,
      },
      this.#deps.accessLogOn,
    )
  }
}
