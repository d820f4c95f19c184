import type { RawData, WebSocket } from 'ws'

const HIGH_WATER = 4 * 1024 * 1024

/** Close codes an endpoint may put on the wire (RFC 6455 §7.4); others are local-only. */
export function isSendableCloseCode(code: number): boolean {
  return (
    (code >= 1000 && code <= 1014 && code !== 1004 && code !== 1005 && code !== 1006) ||
    (code >= 3000 && code <= 4999)
  )
}

/** Closes `peer` the way its counterpart closed: same code and reason where the code may be sent. */
export function closeLike(peer: WebSocket, code: number, reason: Buffer): void {
  if (peer.readyState === peer.CLOSED || peer.readyState === peer.CLOSING) return
  if (peer.readyState === peer.CONNECTING) peer.terminate()
  else if (code === 1005) peer.close()
  else if (isSendableCloseCode(code)) peer.close(code, reason)
  else peer.terminate()
}

function forward(from: WebSocket, to: WebSocket): void {
  from.on('message', (data: RawData, isBinary: boolean) => {
    if (to.readyState !== to.OPEN) return
    to.send(data, { binary: isBinary }, () => {
      if (from.isPaused && to.bufferedAmount < HIGH_WATER / 2) from.resume()
    })
    // A slow receiver must not make the gateway buffer without bound.
    if (to.bufferedAmount > HIGH_WATER) from.pause()
  })
}

/** Relays frames both ways, text staying text and binary binary, and propagates closes and errors. */
export function relayWebSockets(
  client: WebSocket,
  upstream: WebSocket,
  onClosed: () => void,
): void {
  forward(client, upstream)
  forward(upstream, client)
  let closed = false
  const finish = (): void => {
    if (closed) return
    closed = true
    onClosed()
  }
  client.on('close', (code, reason) => {
    closeLike(upstream, code, reason)
    finish()
  })
  upstream.on('close', (code, reason) => {
    closeLike(client, code, reason)
    finish()
  })
  client.on('error', () => upstream.terminate())
  upstream.on('error', () => client.terminate())
}
