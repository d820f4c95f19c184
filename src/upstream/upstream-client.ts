import type { ServerResponse } from 'node:http'
import type { Readable } from 'node:stream'
import { Pool } from 'undici'
import type { Config } from '../config/schema.js'
import { classifyConnectionFailure, type ConnectionFailure } from '../connection-failure.js'
import { GatewayError } from '../errors.js'
import { HOP_BY_HOP, connectionListed } from './hop-by-hop.js'
import {
  StreamingResponseHandler,
  type StreamFailures,
  type StreamOutcome,
} from './streaming-response-handler.js'

export type { StreamOutcome } from './streaming-response-handler.js'

/** One request to send upstream, already authorized and rewritten. */
export interface UpstreamRequest {
  readonly method: string
  /** Path and query, as forwarded (`/agents/a1/runs?x=1`). */
  readonly path: string
  readonly headers: string[]
  readonly body: Readable | Buffer | null
}

export interface BufferedResponse {
  readonly status: number
  readonly headers: Record<string, string | string[]>
  readonly body: Buffer
}

export type UpstreamFailureKind = ConnectionFailure

/**
 * Who asked: a client's request (its failures are counted as upstream errors) or one of the
 * gateway's own probes (readiness, the AgentOS version read; counted apart, so that a probing
 * kubelet does not look like failing traffic).
 */
export type UpstreamCaller = 'request' | 'probe'

/** How a buffered request differs from a client's. */
export interface FetchOptions {
  /** Bounds both the wait for headers and the silence within the body (default: the config's). */
  readonly timeoutMs?: number
  /** Who asks; a probe's failure is the caller's to report, not a client request's error. */
  readonly caller?: UpstreamCaller
}

/**
 * The only module that talks HTTP to the upstream: a keep-alive undici pool (measured faster
 * than http-proxy), streaming both ways without buffering.
 */
export class UpstreamClient {
  readonly #pool: Pool
  readonly #headersTimeout: number
  readonly #bodyTimeout: number
  readonly #onFailure: (kind: UpstreamFailureKind) => void
  readonly #streamFailures: StreamFailures = {
    // A rewritten request body (multipart pinning) fails with its own 400/413 mid-stream.
    early: (error) => (error instanceof GatewayError ? error : this.#failure(error)),
    // Too late for a 502: the client sees the connection end before the response does.
    late: (error) => this.#onFailure(classifyConnectionFailure(error)),
  }

  constructor(
    config: Config['upstream'],
    onFailure: (kind: UpstreamFailureKind) => void = () => {},
  ) {
    this.#pool = new Pool(new URL(config.url).origin, {
      connections: config.max_connections,
      pipelining: 1,
      keepAliveTimeout: 4_000,
      connect: { timeout: config.connect_timeout_ms },
      headersTimeout: config.response_timeout_ms,
      bodyTimeout: config.idle_timeout_ms,
    })
    this.#headersTimeout = config.response_timeout_ms
    this.#bodyTimeout = config.idle_timeout_ms
    this.#onFailure = onFailure
  }

  /**
   * Streams the upstream response into `res` as it arrives (SSE stays event by event). Resolves
   * when the response is complete or the client went away; rejects with UPSTREAM_* only while
   * nothing has been written to the client yet. The response carries `requestId` as X-Request-Id
   * (unless the upstream answered its own).
   */
  stream(
    res: ServerResponse,
    request: UpstreamRequest,
    requestId: string,
    onHeaders?: (status: number) => void,
  ): Promise<StreamOutcome> {
    ignoreBodyErrors(request.body)
    return new Promise<StreamOutcome>((resolve, reject) => {
      this.#pool.dispatch(
        {
          method: request.method,
          path: request.path,
          headers: request.headers,
          body: request.body,
          headersTimeout: this.#headersTimeout,
          bodyTimeout: this.#bodyTimeout,
        },
        new StreamingResponseHandler(
          res,
          requestId,
          onHeaders,
          resolve,
          reject,
          this.#streamFailures,
        ),
      )
    })
  }

  /**
   * Sends a request and buffers the response (bounded): for the few routes whose body we rewrite,
   * and for the gateway's own probes.
   */
  async fetch(
    request: UpstreamRequest,
    maxBytes: number,
    options: FetchOptions = {},
  ): Promise<BufferedResponse> {
    try {
      ignoreBodyErrors(request.body)
      const response = await this.#pool.request({
        method: request.method,
        path: request.path,
        headers: request.headers,
        body: request.body,
        headersTimeout: options.timeoutMs ?? this.#headersTimeout,
        bodyTimeout: options.timeoutMs ?? this.#bodyTimeout,
      })
      const chunks: Buffer[] = []
      let size = 0
      for await (const chunk of response.body as AsyncIterable<Buffer>) {
        size += chunk.length
        if (size > maxBytes) {
          response.body.destroy()
          throw new GatewayError('UPSTREAM_UNAVAILABLE', 'Upstream response too large', {
            reason: 'upstream.response_too_large',
          })
        }
        chunks.push(chunk)
      }
      return {
        status: response.statusCode,
        headers: responseHeaders(response.headers),
        body: Buffer.concat(chunks),
      }
    } catch (error) {
      if (error instanceof GatewayError) throw error
      throw this.#failure(error, options.caller)
    }
  }

  /**
   * Calls `listener` each time the last open connection to the upstream closes, whoever closed it
   * (an idle timeout here, the upstream going away): whatever answers the next request may be a
   * different process. Returns the function that stops listening.
   */
  onAllConnectionsClosed(listener: () => void): () => void {
    const pool = this.#pool
    const disconnected = (): void => {
      if (pool.stats.connected === 0) listener()
    }
    pool.on('disconnect', disconnected)
    return () => pool.off('disconnect', disconnected)
  }

  async close(): Promise<void> {
    await this.#pool.close()
  }

  #failure(error: unknown, caller: UpstreamCaller = 'request'): GatewayError {
    const kind = classifyConnectionFailure(error)
    if (caller === 'request') this.#onFailure(kind)
    return upstreamFailure(kind, error)
  }
}

/** The 502 or 504 a client gets for an upstream that failed before answering. */
export function upstreamFailure(kind: UpstreamFailureKind, cause: unknown): GatewayError {
  if (kind === 'timeout') {
    return new GatewayError('UPSTREAM_TIMEOUT', 'Upstream timed out', {
      cause,
      reason: 'upstream.timeout',
    })
  }
  return new GatewayError('UPSTREAM_UNAVAILABLE', 'Upstream unavailable', {
    cause,
    reason: `upstream.${kind}`,
  })
}

/** Response headers without hop-by-hop fields (and those the upstream listed in `Connection`). */
function responseHeaders(
  headers: Record<string, string | string[] | undefined>,
): Record<string, string | string[]> {
  const listed = connectionListed(headers.connection)
  const out: Record<string, string | string[]> = {}
  for (const name in headers) {
    const value = headers[name]
    if (value === undefined || HOP_BY_HOP.has(name) || listed?.has(name) === true) continue
    out[name] = value
  }
  return out
}

/**
 * undici destroys a body stream it was reading when the upstream fails; the failure is reported
 * by the request itself, and an unhandled 'error' event on the stream would end the process.
 */
function ignoreBodyErrors(body: UpstreamRequest['body']): void {
  if (body !== null && !Buffer.isBuffer(body) && body.listenerCount('error') === 0)
    body.on('error', () => undefined)
}
