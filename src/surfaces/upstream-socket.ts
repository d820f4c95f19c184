import { WebSocket, type RawData } from 'ws'
import { GatewayError } from '../errors.js'
import type { InboundRequest } from '../inbound/inbound-request.js'
import { connectOutcome, toHeaderObject } from '../http/websocket-handshake.js'
import {
  buildUpstreamHeaders,
  type HeaderAdjustments,
  type UpstreamHeaderOptions,
} from '../http/upstream-headers.js'

export interface UpstreamSocketDeps {
  readonly upstreamUrl: string
  readonly connectTimeoutMs: number
  readonly headerOptions: UpstreamHeaderOptions
}

/** Opens WebSockets to the upstream on behalf of a client, with the headers HTTP would get. */
export class UpstreamSockets {
  readonly #deps: UpstreamSocketDeps
  readonly #base: string

  constructor(deps: UpstreamSocketDeps) {
    this.#deps = deps
    const url = new URL(deps.upstreamUrl)
    this.#base = `${url.protocol === 'https:' ? 'wss' : 'ws'}://${url.host}`
  }

  /** Resolves once open; rejects with UPSTREAM_* when it cannot be opened. */
  async open(
    inbound: InboundRequest,
    query: string,
    adjustments: HeaderAdjustments,
  ): Promise<WebSocket> {
    const { headerOptions, connectTimeoutMs } = this.#deps
    const headers = buildUpstreamHeaders(inbound.rawHeaders, headerOptions, inbound, adjustments)
    const search = query === '' ? '' : `?${query}`
    const upstream = new WebSocket(`${this.#base}${inbound.forwardPath}${search}`, [], {
      headers: toHeaderObject(headers),
      perMessageDeflate: false,
      followRedirects: false,
      handshakeTimeout: connectTimeoutMs,
    })
    const outcome = await connectOutcome(upstream)
    if (outcome.kind === 'open') return upstream
    upstream.terminate()
    if (outcome.kind === 'failed') throw outcome.error
    outcome.response.destroy()
    throw new GatewayError('UPSTREAM_UNAVAILABLE', 'Upstream refused the WebSocket', {
      reason: 'upstream.websocket_refused',
    })
  }
}

const HIGH_WATER = 4 * 1024 * 1024

/**
 * Relays upstream frames to the client, except the upstream's own `connected` greeting (the
 * client already had the gateway's), pausing the upstream while the client is slow.
 */
export function relayFromUpstream(upstream: WebSocket, client: WebSocket): void {
  let greeted = false
  upstream.on('message', (data: RawData, isBinary: boolean) => {
    if (!greeted) {
      greeted = true
      if (!isBinary && isConnectedGreeting(data)) return
    }
    if (client.readyState !== client.OPEN) return
    client.send(data, { binary: isBinary }, () => {
      if (upstream.isPaused && client.bufferedAmount < HIGH_WATER / 2) upstream.resume()
    })
    if (client.bufferedAmount > HIGH_WATER) upstream.pause()
  })
}

function isConnectedGreeting(data: RawData): boolean {
  try {
    const parsed: unknown = JSON.parse(toBuffer(data).toString('utf8'))
    return (
      typeof parsed === 'object' &&
      parsed !== null &&
      (parsed as Record<string, unknown>)['event'] === 'connected'
    )
  } catch {
    return false
  }
}

export function toBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data
  if (Array.isArray(data)) return Buffer.concat(data)
  return Buffer.from(data)
}
