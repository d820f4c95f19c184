import type { RawData, WebSocket } from 'ws'

/**
 * What the gateway lets a slow receiver's send buffer hold before it stops reading from the
 * sender (and resumes below half of it): a slow peer must not make the gateway buffer without
 * bound.
 */
export const HIGH_WATER_BYTES = 4 * 1024 * 1024

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

/** Decides, frame by frame, whether a relayed frame goes on (false drops it). */
export type FrameHook = (data: RawData, isBinary: boolean) => boolean

/**
 * Relays `from`'s frames to `to` as they come, text staying text and binary binary, pausing
 * `from` while `to` is slow; `hook`, when given, may drop frames.
 */
export function relayFrames(from: WebSocket, to: WebSocket, hook?: FrameHook): void {
  from.on('message', (data: RawData, isBinary: boolean) => {
    if (hook !== undefined && !hook(data, isBinary)) return
    if (to.readyState !== to.OPEN) return
    to.send(data, { binary: isBinary }, () => {
      if (from.isPaused && to.bufferedAmount < HIGH_WATER_BYTES / 2) from.resume()
    })
    if (to.bufferedAmount > HIGH_WATER_BYTES) from.pause()
  })
}

/** Relays frames both ways and propagates closes (code and reason) and errors. */
export function relayWebSockets(client: WebSocket, upstream: WebSocket): void {
  relayFrames(client, upstream)
  relayFrames(upstream, client)
  client.on('close', (code, reason) => closeLike(upstream, code, reason))
  upstream.on('close', (code, reason) => closeLike(client, code, reason))
  client.on('error', () => upstream.terminate())
  upstream.on('error', () => client.terminate())
}
