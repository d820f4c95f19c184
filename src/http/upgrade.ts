import type { IncomingMessage } from 'node:http'
import type { Duplex } from 'node:stream'
import { WebSocket, WebSocketServer } from 'ws'
import type { InboundRequest } from '../auth/inbound-request.js'
import type { Config } from '../config/schema.js'
import { GatewayError, toGatewayError } from '../errors.js'
import type { Logger } from '../logger.js'
import type { Metrics } from '../metrics.js'
import { canonicalizeTarget, type CanonicalTarget } from './canonical-path.js'
import { normalizeAddress, resolveClientAddress, type TrustedProxies } from './client-address.js'
import { assertHeaderCount } from './header-limits.js'
import { writeRawError, writeRawResponse } from './raw-response.js'
import { chooseRequestId } from './request-id.js'
import {
  buildUpstreamHeaders,
  type HeaderAdjustments,
  type UpstreamHeaderOptions,
} from './upstream-headers.js'
import { relayWebSockets } from './websocket-relay.js'

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
  target: CanonicalTarget,
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
}

const MAX_REFUSAL_BODY = 64 * 1024

/** Offered subprotocols, in order, from every Sec-WebSocket-Protocol line. */
export function offeredProtocols(req: { headers: IncomingMessage['headers'] }): string[] {
  const value = req.headers['sec-websocket-protocol']
  if (value === undefined) return []
  return value
    .split(',')
    .map((protocol) => protocol.trim())
    .filter((protocol) => protocol !== '')
}

/**
 * Handles the server's `upgrade` event (Koa never sees upgrades): canonical path, the auth gate,
 * then a WebSocket to the upstream; only once that is open is the client's handshake completed and
 * frames relayed. Every refusal is an HTTP response on the raw socket; the upstream sees nothing
 * of a refused upgrade.
 */
export class UpgradeHandler {
  readonly #deps: UpgradeDeps
  readonly #server = new WebSocketServer({
    noServer: true,
    perMessageDeflate: false,
    handleProtocols: (_offered, req) => this.#selected.get(req) ?? false,
  })
  readonly #selected = new WeakMap<IncomingMessage, string>()
  readonly #open = new Set<WebSocket>()
  readonly #upstreamBase: string

  constructor(deps: UpgradeDeps) {
    this.#deps = deps
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
    this.#server.handleUpgrade(req, socket, head, (client) => {
      this.#deps.metrics.websocketUpgrades.inc({ outcome: 'accepted' })
      this.#track(client)
      onOpen(client)
    })
  }

  async #handle(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const { config, trustedProxies, metrics } = this.#deps
    assertWebSocketUpgrade(req)
    assertHeaderCount(req.rawHeaders, config.server.max_headers_count)
    const target = canonicalizeTarget(req.url ?? '')
    const peer = normalizeAddress(req.socket.remoteAddress)
    const peerTrusted = trustedProxies.has(peer)
    const inbound: InboundRequest = {
      method: 'GET',
      path: target.path,
      query: target.query,
      headers: req.headers,
      rawHeaders: req.rawHeaders,
      clientAddress: resolveClientAddress(peer, req.headers['x-forwarded-for'], trustedProxies),
      transport: 'websocket',
    }
    const local = this.#deps.localHandlers?.get(target.path)
    if (local !== undefined) {
      local(req, socket, head, inbound)
      return
    }
    const admission = await this.#deps.gate(inbound, target, req)
    const query = admission.query ?? target.query
    const requestId = chooseRequestId(req.headers['x-request-id'], peerTrusted)
    const headers = buildUpstreamHeaders(
      req.rawHeaders,
      this.#deps.headerOptions,
      { peer, peerTrusted, encrypted: false, requestId },
      admission.headers,
    )
    const upstream = new WebSocket(
      `${this.#upstreamBase}${target.forwardPath}${query === '' ? '' : `?${query}`}`,
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
      this.#track(client)
      relayWebSockets(client, upstream, () => undefined)
      admission.onOpen?.(client)
    })
  }

  #track(client: WebSocket): void {
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

function assertWebSocketUpgrade(req: IncomingMessage): void {
  const upgrade = req.headers.upgrade?.toLowerCase()
  // `Upgrade: h2c` and other protocols are never tunnelled (request smuggling through upgrades).
  if (upgrade !== 'websocket') {
    throw new GatewayError(
      'UNSUPPORTED_UPGRADE',
      'Unsupported upgrade: only WebSocket upgrades are accepted',
      {
        reason: 'upgrade.protocol',
      },
    )
  }
  if (
    req.method !== 'GET' ||
    req.headers['sec-websocket-key'] === undefined ||
    req.headers['sec-websocket-version'] !== '13'
  ) {
    throw new GatewayError('UNSUPPORTED_UPGRADE', 'Invalid WebSocket handshake', {
      reason: 'upgrade.handshake',
    })
  }
}

export type ConnectOutcome =
  | { kind: 'open' }
  | { kind: 'refused'; response: IncomingMessage }
  | { kind: 'failed'; error: GatewayError }

/**
 * A server may accept without choosing any offered subprotocol (RFC 6455 §4.2.2; AgentOS's
 * workflow socket does), which the `ws` client treats as a failed handshake. Its `upgrade` event
 * comes before that check, so the answer is recorded there and made acceptable to the client;
 * the returned function tells whether the upstream chose none.
 */
function acceptNoSubprotocol(upstream: WebSocket, offered: readonly string[]): () => boolean {
  let choseNone = false
  const first = offered[0]
  if (first !== undefined) {
    upstream.once('upgrade', (response: IncomingMessage) => {
      if (response.headers['sec-websocket-protocol'] !== undefined) return
      choseNone = true
      response.headers['sec-websocket-protocol'] = first
    })
  }
  return () => choseNone
}

/** How an upstream WebSocket handshake ended. */
export function connectOutcome(upstream: WebSocket): Promise<ConnectOutcome> {
  return new Promise((resolve) => {
    upstream.once('open', () => resolve({ kind: 'open' }))
    upstream.once('unexpected-response', (_request, response) =>
      resolve({ kind: 'refused', response }),
    )
    upstream.once('error', (error: Error) => {
      const timedOut = /timed out/i.test(error.message)
      resolve({
        kind: 'failed',
        error: timedOut
          ? new GatewayError('UPSTREAM_TIMEOUT', 'Upstream timed out', {
              cause: error,
              reason: 'upstream.timeout',
            })
          : new GatewayError('UPSTREAM_UNAVAILABLE', 'Upstream unavailable', {
              cause: error,
              reason: 'upstream.unavailable',
            }),
      })
    })
  })
}

/** The upstream refused the handshake: pass its status and (bounded) body on to the client. */
function relayRefusal(socket: Duplex, response: IncomingMessage, done: () => void): void {
  const chunks: Buffer[] = []
  let size = 0
  let finished = false
  const finish = (): void => {
    if (finished) return
    finished = true
    done()
    const contentType = response.headers['content-type'] ?? 'application/json'
    writeRawResponse(socket, response.statusCode ?? 502, Buffer.concat(chunks), {
      'content-type': contentType,
    })
    response.destroy()
  }
  response.on('data', (chunk: Buffer) => {
    size += chunk.length
    if (size <= MAX_REFUSAL_BODY) chunks.push(chunk)
  })
  response.once('end', finish)
  response.once('error', finish)
  response.once('close', finish)
}

/** A flat header list as the `ws` client takes it (its own handshake fields left out). */
export function toHeaderObject(flat: readonly string[]): Record<string, string> {
  const headers: Record<string, string> = {}
  for (let index = 0; index < flat.length; index += 2) {
    const name = (flat[index] as string).toLowerCase()
    // ws writes its own handshake fields.
    if (name.startsWith('sec-websocket-')) continue
    const value = flat[index + 1] as string
    const current = headers[name]
    headers[name] =
      current === undefined ? value : `${current}${name === 'cookie' ? '; ' : ', '}${value}`
  }
  return headers
}
