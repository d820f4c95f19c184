import type { IncomingMessage } from 'node:http'
import type { Duplex } from 'node:stream'
import { WebSocket } from 'ws'
import { classifyConnectionFailure, type ConnectionFailure } from '../connection-failure.js'
import type { GatewayError } from '../errors.js'
import type { InboundRequest } from '../inbound/inbound-request.js'
import type { ForwardPlan } from './forward-plan.js'
import { upstreamFailure } from './upstream-client.js'
import { buildUpstreamHeaders, type UpstreamHeaderOptions } from './upstream-headers.js'

const MAX_REFUSAL_BODY = 64 * 1024

export interface UpstreamWebSocketOptions {
  readonly upstreamUrl: string
  readonly connectTimeoutMs: number
  readonly headerOptions: UpstreamHeaderOptions
  /** Hears of every handshake that failed to reach the upstream (counted as an upstream error). */
  readonly onFailure?: (kind: ConnectionFailure) => void
}

/** How an upstream WebSocket handshake ended, when it did not fail outright. */
export type UpstreamSocketOutcome =
  | {
      readonly kind: 'open'
      readonly socket: WebSocket
      /** The subprotocol the upstream chose; '' when it chose none of those offered. */
      readonly protocol: string
    }
  | {
      /** The upstream answered the handshake with an HTTP response of its own. */
      readonly kind: 'refused'
      readonly status: number
      /** At most 64 KiB of it. */
      readonly body: Buffer
      readonly contentType: string
    }

/**
 * The only code that opens WebSockets to the upstream, for relayed upgrades and for the workflow
 * endpoint alike: the request's canonical path and planned query, the headers HTTP would get
 * (built once from the plan), no redirects, no compression, the connect timeout as handshake
 * timeout.
 */
export class UpstreamWebSockets {
  readonly #options: UpstreamWebSocketOptions
  readonly #base: string

  constructor(options: UpstreamWebSocketOptions) {
    this.#options = options
    const url = new URL(options.upstreamUrl)
    this.#base = `${url.protocol === 'https:' ? 'wss' : 'ws'}://${url.host}`
  }

  /**
   * Resolves once the upstream answered; rejects with UPSTREAM_* when it cannot be reached (or
   * the client's socket, when given, closed first: the attempt is abandoned).
   */
  async open(
    inbound: InboundRequest,
    plan: ForwardPlan,
    protocols: readonly string[],
    clientSocket?: Duplex,
  ): Promise<UpstreamSocketOutcome> {
    const { headerOptions, connectTimeoutMs } = this.#options
    const headers = buildUpstreamHeaders(inbound.rawHeaders, headerOptions, inbound, plan)
    const query = plan.query ?? inbound.query
    const upstream = new WebSocket(
      `${this.#base}${inbound.forwardPath}${query === '' ? '' : `?${query}`}`,
      [...protocols],
      {
        headers: toHeaderObject(headers),
        perMessageDeflate: false,
        followRedirects: false,
        handshakeTimeout: connectTimeoutMs,
      },
    )
    const choseNone = acceptNoSubprotocol(upstream, protocols)
    let abandoned = false
    const abandon = (): void => {
      abandoned = true
      upstream.terminate()
    }
    clientSocket?.once('close', abandon)
    const outcome = await connectOutcome(upstream)
    clientSocket?.off('close', abandon)
    if (outcome.kind === 'failed') {
      // A client that left first is not an upstream failure.
      if (!abandoned) this.#options.onFailure?.(outcome.failure)
      throw outcome.error
    }
    if (outcome.kind === 'refused') {
      // Terminating before the body is read would abort the response and lose it.
      const body = await readRefusal(outcome.response)
      upstream.terminate()
      outcome.response.destroy()
      return {
        kind: 'refused',
        status: outcome.response.statusCode ?? 502,
        body,
        contentType: outcome.response.headers['content-type'] ?? 'application/json',
      }
    }
    return { kind: 'open', socket: upstream, protocol: choseNone() ? '' : upstream.protocol }
  }
}

type ConnectOutcome =
  | { kind: 'open' }
  | { kind: 'refused'; response: IncomingMessage }
  | { kind: 'failed'; failure: ConnectionFailure; error: GatewayError }

/** How an upstream WebSocket handshake ended. */
function connectOutcome(upstream: WebSocket): Promise<ConnectOutcome> {
  return new Promise((resolve) => {
    upstream.once('open', () => resolve({ kind: 'open' }))
    upstream.once('unexpected-response', (_request, response) =>
      resolve({ kind: 'refused', response }),
    )
    upstream.once('error', (error: Error) => {
      // ws reports its handshake timeout by message only ("Opening handshake has timed out").
      const failure = /timed out/i.test(error.message)
        ? 'timeout'
        : classifyConnectionFailure(error)
      resolve({ kind: 'failed', failure, error: upstreamFailure(failure, error) })
    })
  })
}

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

/** The (bounded) body of the upstream's refusal, whatever way the response ends. */
function readRefusal(response: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = []
    let size = 0
    const finish = (): void => resolve(Buffer.concat(chunks))
    response.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (size <= MAX_REFUSAL_BODY) chunks.push(chunk)
    })
    response.once('end', finish)
    response.once('error', finish)
    response.once('close', finish)
  })
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
