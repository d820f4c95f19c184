import type { IncomingMessage } from 'node:http'
import { canonicalizeTarget } from './canonical-path.js'
import { normalizeAddress, resolveClientAddress, type TrustedProxies } from './client-address.js'
import { assertHeaderCount, assertHeaderFields } from './header-limits.js'
import type { InboundRequest, RequestClient } from './inbound-request.js'
import { chooseRequestId } from './request-id.js'

/** The settings every inbound request is read with (`server.*`). */
export interface InboundSettings {
  readonly trustedProxies: TrustedProxies
  readonly maxHeadersCount: number
}

/** Who sent the request: the peer, whether it is a trusted proxy, the client address, a request id. */
export function identifyClient(
  req: IncomingMessage,
  trustedProxies: TrustedProxies,
): RequestClient {
  const peer = normalizeAddress(req.socket.remoteAddress)
  const peerTrusted = trustedProxies.has(peer)
  return {
    peer,
    peerTrusted,
    clientAddress: peerTrusted
      ? resolveClientAddress(peer, req.headers['x-forwarded-for'], trustedProxies)
      : peer,
    requestId: chooseRequestId(req.headers['x-request-id'], peerTrusted),
  }
}

/**
 * The one inbound adapter, for HTTP requests and WebSocket upgrades alike: a Node request and its
 * client become the transport-free request the decision core decides on. Refuses (431, 400) a
 * header block over `server.max_headers_count`, a field given twice whose copies could be read
 * differently, a `Connection` header naming a field the gateway decides on, and every ambiguous
 * target (canonical-path.ts).
 */
export function readInbound(
  req: IncomingMessage,
  client: RequestClient,
  transport: InboundRequest['transport'],
  settings: InboundSettings,
): InboundRequest {
  const rawHeaders = req.rawHeaders
  assertHeaderCount(rawHeaders, settings.maxHeadersCount)
  assertHeaderFields(rawHeaders)
  const target = canonicalizeTarget(req.url ?? '')
  return {
    method: req.method ?? 'GET',
    path: target.path,
    forwardPath: target.forwardPath,
    query: target.query,
    headers: req.headers,
    rawHeaders,
    transport,
    peer: client.peer,
    peerTrusted: client.peerTrusted,
    clientAddress: client.clientAddress,
    requestId: client.requestId,
  }
}
