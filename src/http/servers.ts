import { createServer, STATUS_CODES, type RequestListener, type Server } from 'node:http'
import type { Socket } from 'node:net'
import type { Config } from '../config/schema.js'
import type { ParserReason } from '../reasons.js'
import { describeSystemError, StartupError } from '../startup-error.js'

const CLIENT_ERROR_STATUS: Record<string, number> = {
  HPE_HEADER_OVERFLOW: 431,
  ERR_HTTP_REQUEST_TIMEOUT: 408,
}

/** A request Node's HTTP parser (or its timeouts) refused before the gateway saw it. */
export interface ParserRefusal {
  readonly status: number
  /** Bounded: `http.timeout`, or `http.` and llhttp's error name (`http.header_overflow`, …). */
  readonly reason: ParserReason
  readonly peer: string | undefined
}

function refusalReason(code: string | undefined): ParserReason {
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return 'http.timeout'
  if (code?.startsWith('HPE_') === true) return `http.${code.slice(4).toLowerCase()}`
  return 'http.malformed'
}

/**
 * The proxy listener with the limits that protect it from slow or oversized clients. Node's strict
 * parser stays on (`insecureHTTPParser` is never set): smuggling forms are refused with 400, an
 * oversized header block with 431, a slow one with 408; `onRefused` hears of each (to count and
 * log what never reaches the middleware).
 */
export function createProxyServer(
  config: Config['server'],
  listener: RequestListener,
  onRefused: (refusal: ParserRefusal) => void = () => undefined,
): Server {
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
    const peer = (socket as Partial<Socket>).remoteAddress
    onRefused({ status, reason: refusalReason(error.code), peer })
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

/**
 * `listen`, with a failure turned into a StartupError naming the address, the settings that
 * control it and the reason in words (exit code 3).
 */
export async function listenOrExplain(
  server: Server,
  port: number,
  host: string,
  settings: { port: string; host: string },
): Promise<number> {
  try {
    return await listen(server, port, host)
  } catch (error) {
    throw listenFailure(error, port, host, settings)
  }
}

/** A failed listen as one line naming the address, the setting to change and why (exit 3). */
export function listenFailure(
  error: unknown,
  port: number,
  host: string,
  settings: { port: string; host: string },
): StartupError {
  const code = (error as NodeJS.ErrnoException).code
  const address = `${host.includes(':') ? `[${host}]` : host}:${port}`
  const controls =
    code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EAI_AGAIN'
      ? settings.host
      : settings.port
  const why =
    (code === 'EACCES' || code === 'EPERM') && port < 1024
      ? 'permission denied (ports below 1024 need privileges)'
      : describeSystemError(error)
  return new StartupError('listen', `cannot listen on ${address} (${controls}): ${why}`, {
    cause: error,
  })
}

export async function closeServer(server: Server): Promise<void> {
  if (!server.listening) return
  await new Promise<void>((resolve) => server.close(() => resolve()))
}

/** The URL a client on this machine reaches a listener at (a wildcard address means loopback). */
export function listenerUrl(host: string, port: number): string {
  const reachable = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host
  // An IPv6 literal needs brackets in a URL.
  return `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${port}`
}
