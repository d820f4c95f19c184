import { Socket } from 'node:net'
import { performance } from 'node:perf_hooks'
import type { Duplex } from 'node:stream'
import type { WebSocket } from 'ws'
import { GatewayError } from '../errors.js'
import { throttleKey } from '../inbound/client-key.js'

/** RFC 6455 §7.4.1 "going away": the gateway ends a connection nobody uses. */
export const IDLE_CLOSE_CODE = 1001

export interface WebSocketAdmissionLimits {
  readonly maxConnections: number
  readonly maxPerClient: number
}

/**
 * Bounds the WebSocket connections the process holds, in total and per client address (IPv6 by
 * /64, as the failed-lookup throttle groups them). A slot is taken before authentication, so
 * handshakes in progress count too, and given back when the client's TCP socket closes, however
 * the upgrade ended. It outlives config reloads: the connections do.
 */
export class WebSocketAdmission {
  readonly #limits: WebSocketAdmissionLimits
  readonly #byClient = new Map<string, number>()
  #total = 0

  constructor(limits: WebSocketAdmissionLimits) {
    this.#limits = limits
  }

  /** Connections (open or in handshake) currently holding a slot. */
  get size(): number {
    return this.#total
  }

  /** Takes a slot for the upgrade on `socket`, or throws 503 (gateway full) or 429 (client full). */
  admit(clientAddress: string, socket: Duplex): void {
    const key = throttleKey(clientAddress)
    if (this.#total >= this.#limits.maxConnections) {
      throw new GatewayError('OVER_CAPACITY', 'Too many WebSocket connections', {
        reason: 'websocket.capacity',
      })
    }
    const held = this.#byClient.get(key) ?? 0
    if (held >= this.#limits.maxPerClient) {
      throw new GatewayError('THROTTLED', 'Too many WebSocket connections from this address', {
        reason: 'websocket.client_limit',
      })
    }
    this.#total++
    this.#byClient.set(key, held + 1)
    let released = false
    const release = (): void => {
      if (released) return
      released = true
      this.#total--
      const left = (this.#byClient.get(key) ?? 1) - 1
      if (left === 0) this.#byClient.delete(key)
      else this.#byClient.set(key, left)
    }
    socket.once('close', release)
    if (socket.destroyed) release()
  }
}

/**
 * Closes `client` with 1001 once its TCP socket has carried no byte in either direction (frames,
 * pings, pongs) for `timeoutMs`; checked every quarter of it, so the close comes between 1 and
 * 1.25 times the timeout. 0 disables it.
 */
export function closeWhenIdle(client: WebSocket, socket: Duplex, timeoutMs: number): void {
  if (timeoutMs <= 0 || !(socket instanceof Socket)) return
  let seen = socket.bytesRead + socket.bytesWritten
  let activeAt = performance.now()
  const timer = setInterval(
    () => {
      const bytes = socket.bytesRead + socket.bytesWritten
      if (bytes !== seen) {
        seen = bytes
        activeAt = performance.now()
      } else if (performance.now() - activeAt >= timeoutMs) {
        clearInterval(timer)
        client.close(IDLE_CLOSE_CODE, 'idle timeout')
      }
    },
    Math.max(10, Math.ceil(timeoutMs / 4)),
  )
  timer.unref()
  client.once('close', () => clearInterval(timer))
}
