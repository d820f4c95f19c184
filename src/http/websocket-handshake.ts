import type { IncomingMessage } from 'node:http'
import type { Duplex } from 'node:stream'
import type { WebSocket } from 'ws'
import { GatewayError } from '../errors.js'
import { writeRawResponse } from './raw-response.js'

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

export function assertWebSocketUpgrade(req: IncomingMessage): void {
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
export function acceptNoSubprotocol(
  upstream: WebSocket,
  offered: readonly string[],
): () => boolean {
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
export function relayRefusal(socket: Duplex, response: IncomingMessage, done: () => void): void {
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
