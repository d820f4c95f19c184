import { STATUS_CODES } from 'node:http'
import type { Duplex } from 'node:stream'
import { errorBody, errorHeaders, type GatewayError } from '../errors.js'

/**
 * Answers on a raw socket (upgrade requests never reach Koa) with the same JSON body as HTTP
 * errors, then closes the socket.
 */
export function writeRawError(
  socket: Duplex,
  error: GatewayError,
  extraHeaders: Record<string, string> = {},
): void {
  writeRawResponse(socket, error.status, JSON.stringify(errorBody(error)), {
    'content-type': 'application/json',
    ...errorHeaders(error),
    ...extraHeaders,
  })
}

export function writeRawResponse(
  socket: Duplex,
  status: number,
  body: string | Buffer,
  headers: Record<string, string>,
): void {
  if (!socket.writable) {
    socket.destroy()
    return
  }
  const payload = typeof body === 'string' ? Buffer.from(body) : body
  let head = `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Unknown'}\r\n`
  for (const [name, value] of Object.entries(headers)) {
    if (/[\r\n]/.test(value)) continue
    head += `${name}: ${value}\r\n`
  }
  head += `content-length: ${payload.length}\r\nconnection: close\r\n\r\n`
  socket.end(Buffer.concat([Buffer.from(head, 'latin1'), payload]))
  socket.once('finish', () => socket.destroy())
}
