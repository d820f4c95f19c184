import type { IncomingHttpHeaders } from 'node:http'

/** Who sent a request, as far as this hop can tell; known before anything can be refused. */
export interface RequestClient {
  /** The socket peer, normalized (`::ffff:10.0.0.1` is 10.0.0.1). */
  readonly peer: string
  /** The peer is in `server.trusted_proxies`: its X-Forwarded-* and X-Request-Id are believed. */
  readonly peerTrusted: boolean
  /** The client address: the socket peer, or from X-Forwarded-For when the peer is trusted. */
  readonly clientAddress: string
  /** The request id (X-Request-Id): a trusted proxy's, else a new one. */
  readonly requestId: string
}

/**
 * A request as the decision core sees it: transport-free, so HTTP (Koa) and WebSocket upgrades
 * (the server's `upgrade` event, which Koa never sees) share one authentication path. Built once
 * per request by `readInbound`; nothing parses the raw target again.
 */
export interface InboundRequest extends RequestClient {
  readonly method: string
  /** The canonical path (see canonical-path.ts): the path authorized is the path forwarded. */
  readonly path: string
  /** `path` re-encoded for the wire; the upstream decodes it back to exactly `path`. */
  readonly forwardPath: string
  /** The raw query string, without `?`. */
  readonly query: string
  readonly headers: IncomingHttpHeaders
  readonly rawHeaders: readonly string[]
  readonly transport: 'http' | 'websocket'
}
