import type { IncomingHttpHeaders } from 'node:http'

/**
 * A request as the decision core sees it: transport-free, so HTTP (Koa) and WebSocket upgrades
 * (the server's `upgrade` event, which Koa never sees) share one authentication path.
 */
export interface InboundRequest {
  readonly method: string
  /** The canonical path (see http/canonical-path.ts): the path authorized is the path forwarded. */
  readonly path: string
  /** The raw query string, without `?`. */
  readonly query: string
  readonly headers: IncomingHttpHeaders
  readonly rawHeaders: readonly string[]
  /** The client address: the socket peer, or from X-Forwarded-For when the peer is trusted. */
  readonly clientAddress: string
  readonly transport: 'http' | 'websocket'
  /** The request id (X-Request-Id), for debug lines that belong to one request. */
  readonly requestId?: string
}
