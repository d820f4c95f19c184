import type { ServerResponse } from 'node:http'
import type { Dispatcher } from 'undici'
import { HOP_BY_HOP, connectionListed } from './hop-by-hop.js'

/** How a streamed exchange ended, for the access log. */
export type StreamOutcome = 'complete' | 'client_gone' | 'upstream_failed'

export interface StreamCallbacks {
  /** Response headers arrived (for the upstream latency metric). */
  readonly onHeaders?: (status: number) => void
  readonly resolve: (outcome: StreamOutcome) => void
  /** The upstream failed before anything was written to the client. */
  readonly reject: (error: Error) => void
  /** The upstream failed after the response had started; the client connection is cut. */
  readonly onLateFailure: (error: Error) => void
}

const EVENT_STREAM = /^text\/event-stream/i

/**
 * Writes an upstream response into the client's response as it arrives, on undici's native
 * handler interface: no stream pipeline and no AbortController per request. Upstream
 * backpressure follows the client (`write` returning false pauses undici until `drain`).
 */
export class StreamingResponseHandler implements Dispatcher.DispatchHandler {
  readonly #res: ServerResponse
  readonly #callbacks: StreamCallbacks
  #abort: ((error?: Error) => void) | undefined
  #resume: (() => void) | undefined
  #clientGone = false
  #settled = false

  constructor(res: ServerResponse, callbacks: StreamCallbacks) {
    this.#res = res
    this.#callbacks = callbacks
    res.once('close', this.#onClientClose)
    res.on('drain', this.#onDrain)
  }

  onConnect(abort: (error?: Error) => void): void {
    this.#abort = abort
    if (this.#clientGone) abort()
  }

  onHeaders(
    statusCode: number,
    rawHeaders: Buffer[],
    resume: () => void,
    statusText: string,
  ): boolean {
    // 1xx informational responses are hop-by-hop; Node answers the client's own 100-continue.
    if (statusCode < 200) return true
    this.#resume = resume
    const headers = responseHeaders(rawHeaders)
    this.#callbacks.onHeaders?.(statusCode)
    this.#res.writeHead(statusCode, statusText, headers.headers)
    // An event stream's client waits for the headers; everything else leaves with its first bytes.
    if (headers.eventStream) this.#res.flushHeaders()
    return true
  }

  onData(chunk: Buffer): boolean {
    return this.#res.write(chunk)
  }

  onComplete(): void {
    this.#res.end()
    this.#finish('complete')
  }

  onError(error: Error): void {
    if (this.#settled) return
    if (this.#clientGone) {
      if (!this.#res.writableEnded) this.#res.destroy()
      this.#finish('client_gone')
    } else if (this.#res.headersSent) {
      this.#callbacks.onLateFailure(error)
      this.#res.destroy()
      this.#finish('upstream_failed')
    } else {
      this.#settled = true
      this.#detach()
      this.#callbacks.reject(error)
    }
  }

  #finish(outcome: StreamOutcome): void {
    if (this.#settled) return
    this.#settled = true
    this.#detach()
    this.#callbacks.resolve(outcome)
  }

  #detach(): void {
    this.#res.off('close', this.#onClientClose)
    this.#res.off('drain', this.#onDrain)
  }

  readonly #onClientClose = (): void => {
    if (this.#res.writableFinished) return
    this.#clientGone = true
    this.#abort?.()
  }

  readonly #onDrain = (): void => {
    this.#resume?.()
  }
}

/**
 * Response headers without hop-by-hop fields, repeated fields (Set-Cookie) kept as arrays: Node
 * merges `writeHead` headers into ones already set (X-Request-Id) with `setHeader`, which would
 * keep only the last of a repeated field given as a flat list.
 */
function responseHeaders(raw: Buffer[]): {
  headers: Record<string, string | string[]>
  eventStream: boolean
} {
  let listed: Set<string> | undefined
  for (let index = 0; index < raw.length; index += 2) {
    const name = raw[index] as Buffer
    if (name.length === 10 && name.toString('latin1').toLowerCase() === 'connection') {
      listed = connectionListed((raw[index + 1] as Buffer).toString('latin1'))
    }
  }
  const headers: Record<string, string | string[]> = {}
  let eventStream = false
  for (let index = 0; index < raw.length; index += 2) {
    const name = (raw[index] as Buffer).toString('latin1').toLowerCase()
    if (HOP_BY_HOP.has(name) || listed?.has(name) === true) continue
    const value = (raw[index + 1] as Buffer).toString('latin1')
    if (name === 'content-type' && EVENT_STREAM.test(value)) eventStream = true
    const current = headers[name]
    headers[name] =
      current === undefined
        ? value
        : Array.isArray(current)
          ? [...current, value]
          : [current, value]
  }
  return { headers, eventStream }
}
