import { createServer, STATUS_CODES, type RequestListener, type Server } from 'node:http'
import type { Config } from '../config/schema.js'

const CLIENT_ERROR_STATUS: Record<string, number> = {
  HPE_HEADER_OVERFLOW: 431,
  ERR_HTTP_REQUEST_TIMEOUT: 408,
}

/**
 * The proxy listener with the limits that protect it from slow or oversized clients. Node's strict
 * parser stays on (`insecureHTTPParser` is never set): smuggling forms are refused with 400.
 */
export function createProxyServer(config: Config['server'], listener: RequestListener): Server {
  const server = createServer(
    {
      insecureHTTPParser: false,
      requireHostHeader: true,
      maxHeaderSize: config.max_header_bytes,
      headersTimeout: config.headers_timeout_ms,
      requestTimeout: config.request_timeout_ms,
      keepAliveTimeout: config.keep_alive_timeout_ms,
      // Incomplete requests are checked on this interval; Node's default of 30 s would let a
      // slowloris client outlive headers_timeout by that much.
      connectionsCheckingInterval: Math.min(1_000, config.headers_timeout_ms),
    },
    listener,
  )
  server.maxHeadersCount = config.max_headers_count + 1
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy()
      return
    }
    const status = CLIENT_ERROR_STATUS[error.code ?? ''] ?? 400
    const body = JSON.stringify({ detail: STATUS_CODES[status] })
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n${body}`,
    )
  })
  return server
}

export async function listen(server: Server, port: number, host: string): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => {
      server.off('error', reject)
      resolve()
    })
  })
  const address = server.address()
  if (address === null || typeof address === 'string') throw new Error('server has no TCP address')
  return address.port
}

export async function closeServer(server: Server): Promise<void> {
  if (!server.listening) return
  await new Promise<void>((resolve) => server.close(() => resolve()))
}
