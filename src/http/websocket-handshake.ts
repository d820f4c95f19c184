import type { IncomingMessage } from 'node:http'
import { GatewayError } from '../errors.js'

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
