import type { ServerResponse } from 'node:http'
import type { Dispatcher } from 'undici'
import { FieldNames } from '../inbound/field-name.js'
import { HOP_BY_HOP, connectionListed } from './hop-by-hop.js'

/** How a streamed exchange ended, for the access log. */
export type StreamOutcome = 'complete' | 'client_gone' | 'upstream_failed'

/** What a streamed exchange's failures become, the same for every request of an upstream client. */
export interface StreamFailures {
  /** The upstream failed before anything was written to the client: what the request rejects with. */
  early(error: Error): Error
  /** The upstream failed after the response had started; the client connection is cut. */
  late(error: Error): void
}

type Resolve = (outcome: StreamOutcome) => void
type Reject = (error: Error) => void

const EVENT_STREAM = /^text\/event-stream/i
const REQUEST_ID = 'x-request-id'

/**
 * Writes an upstream response into the client's response as it arrives, on undici's native
 * handler interface: no stream pipeline and no AbortController per request. Upstream
 * backpressure follows the client (`write` returning false pauses undici until `drain`). Made
 * once per request from what the request already has (its promise's settlers, the caller's
 * header callback) and what its client shares (the failures): no object of callbacks per request.
 */
export class StreamingResponseHandler implements Dispatcher.DispatchHandler {
  readonly #res: ServerResponse
  readonly #requestId: string
  /** Response headers arrived (for the upstream latency metric). */
  readonly #onHeaders: ((status: number) => void) | undefined
  readonly #resolve: Resolve
  readonly #reject: Reject
  readonly #failures: StreamFailures
  #abort: ((error?: Error) => void) | undefined
  #resume: (() => void) | undefined
  #onDrain: (() => void) | undefined
  #waitingForDrain = false
  #clientGone = false
  #settled = false

  /**
   * `requestId` is answered as X-Request-Id unless the upstream sent its own; it is written with
   * the upstream's fields in one `writeHead`, so nothing is set on `res` before (a header set
   * before `writeHead` makes Node merge every field in one by one).
   */
  constructor(
    res: ServerResponse,
    requestId: string,
    onHeaders: ((status: number) => void) | undefined,
    resolve: Resolve,
    reject: Reject,
    failures: StreamFailures,
  ) {
    this.#res = res
    this.#requestId = requestId
    this.#onHeaders = onHeaders
    this.#resolve = resolve
    this.#reject = reject
    this.#failures = failures
    // `on`, removed when settled: `once` wraps the listener in a further closure per request.
    res.on('close', this.#onClientClose)
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
    const head = responseHead(rawHeaders, this.#requestId)
    this.#onHeaders?.(statusCode)
    this.#res.writeHead(statusCode, statusText, head.fields)
    // An event stream's client waits for the headers; everything else leaves with its first bytes.
    if (head.eventStream) this.#res.flushHeaders()
    return true
  }

  onData(chunk: Buffer): boolean {
    if (this.#res.write(chunk)) return true
    // Listened for only when the client is slower than the upstream: most responses never are.
    if (!this.#waitingForDrain) {
      this.#waitingForDrain = true
      this.#onDrain ??= () => {
        this.#waitingForDrain = false
        this.#resume?.()
      }
      this.#res.once('drain', this.#onDrain)
    }
    return false
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
      this.#failures.late(error)
      this.#res.destroy()
      this.#finish('upstream_failed')
    } else {
      this.#settled = true
      this.#detach()
      this.#reject(this.#failures.early(error))
    }
  }

  #finish(outcome: StreamOutcome): void {
    if (this.#settled) return
    this.#settled = true
    this.#detach()
    this.#resolve(outcome)
  }

  #detach(): void {
    this.#res.off('close', this.#onClientClose)
    if (this.#waitingForDrain && this.#onDrain !== undefined) this.#res.off('drain', this.#onDrain)
  }

  readonly #onClientClose = (): void => {
    if (this.#res.writableFinished) return
    this.#clientGone = true
    this.#abort?.()
  }
}

const CONTENT_TYPE = 'content-type'
const CONNECTION = 'connection'
/**
 * Fields most answers carry. One of these is written under its lowercase name, the name as
 * uvicorn (AgentOS's server) writes every name, without making a string of the name's bytes.
 */
const COMMON_RESPONSE_FIELDS = [
  CONTENT_TYPE,
  'content-length',
  'content-encoding',
  'content-disposition',
  'date',
  'server',
  'vary',
  'cache-control',
  'expires',
  'etag',
  'last-modified',
  'location',
  'set-cookie',
  'retry-after',
  'www-authenticate',
  'access-control-allow-origin',
  'access-control-allow-credentials',
  'access-control-expose-headers',
  'x-content-type-options',
]
/** The response fields looked at: each is left out, read, or written under its listed name. */
const LOOKED_AT = new FieldNames([...HOP_BY_HOP, REQUEST_ID, ...COMMON_RESPONSE_FIELDS])

/**
 * The response's fields as one flat list for `writeHead`, in the upstream's order: hop-by-hop
 * fields (and those the upstream listed in `Connection`) left out, repeated fields (Set-Cookie)
 * kept as they came, X-Request-Id first unless the upstream sent its own. Names are compared in
 * the bytes they came in, so a field left out or a common one (COMMON_RESPONSE_FIELDS) is never
 * made a string; the others keep the upstream's spelling. A `Connection` header that
 * lists fields (rare: `keep-alive` and `close` list none) has the list made again without them.
 */
export function responseHead(
  raw: Buffer[],
  requestId: string,
): { fields: string[]; eventStream: boolean } {
  const fields = [REQUEST_ID, requestId]
  let eventStream = false
  let connection: string | undefined
  for (let index = 0; index < raw.length; index += 2) {
    const rawName = raw[index] as Buffer
    const known = LOOKED_AT.findBytes(rawName)
    if (known === CONNECTION) {
      const value = (raw[index + 1] as Buffer).toString('latin1')
      connection = connection === undefined ? value : `${connection}, ${value}`
      continue
    }
    if (known !== undefined && HOP_BY_HOP.has(known)) continue
    const value = (raw[index + 1] as Buffer).toString('latin1')
    if (known === REQUEST_ID) {
      fields[1] = value
      continue
    }
    if (known === CONTENT_TYPE && EVENT_STREAM.test(value)) eventStream = true
    fields.push(known ?? rawName.toString('latin1'), value)
  }
  const listed = connection === undefined ? undefined : connectionListed(connection)
  return listed === undefined
    ? { fields, eventStream }
    : withoutListed(fields, eventStream, listed, requestId)
}

/** `fields` without those a `Connection` header listed (the gateway's X-Request-Id stays first). */
function withoutListed(
  fields: string[],
  eventStream: boolean,
  listed: Set<string>,
  requestId: string,
): { fields: string[]; eventStream: boolean } {
  const kept = [REQUEST_ID, listed.has(REQUEST_ID) ? requestId : (fields[1] as string)]
  let stream = eventStream
  for (let index = 2; index < fields.length; index += 2) {
    const name = fields[index] as string
    const lower = name.toLowerCase()
    if (listed.has(lower)) {
      if (lower === CONTENT_TYPE) stream = false
      continue
    }
    kept.push(name, fields[index + 1] as string)
  }
  return { fields: kept, eventStream: stream }
}
