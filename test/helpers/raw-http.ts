import { request, type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http'
import { connect } from 'node:net'
import { pipeline } from 'node:stream/promises'
import type { Readable } from 'node:stream'
import { within } from './wait.js'

export interface HttpResult {
  readonly status: number
  readonly headers: IncomingHttpHeaders
  readonly rawHeaders: readonly string[]
  readonly body: Buffer
  readonly text: string
  json(): unknown
}

/** A response body as JSON (undefined when empty or not JSON) and its `detail`, when it has one. */
export function jsonReply(text: string): { body: unknown; detail: unknown } {
  let body: unknown
  try {
    body = text === '' ? undefined : JSON.parse(text)
  } catch {
    body = undefined
  }
  const detail =
    typeof body === 'object' && body !== null && !Array.isArray(body)
      ? (body as { detail?: unknown }).detail
      : undefined
  return { body, detail }
}

export interface HttpOptions {
  readonly method?: string
  /** Sent verbatim as the request target (node:http does not normalize `..` as fetch does). */
  readonly path: string
  /** An object, or a flat [name, value, …] list sent in that order with those spellings. */
  readonly headers?: OutgoingHttpHeaders | readonly string[]
  readonly body?: string | Buffer | Readable | AsyncIterable<Buffer>
  readonly timeoutMs?: number
}

/** One request on a fresh connection with node:http; resolves with the whole response. */
export async function httpRequest(baseUrl: string, options: HttpOptions): Promise<HttpResult> {
  const { hostname, port } = new URL(baseUrl)
  const work = new Promise<HttpResult>((resolve, reject) => {
    const req = request({
      host: hostname,
      port,
      method: options.method ?? 'GET',
      path: options.path,
      headers: withLength(options.headers, options.body),
      agent: false,
    })
    req.on('error', reject)
    req.on('response', (res) => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('error', reject)
      res.on('end', () => {
        const body = Buffer.concat(chunks)
        const text = body.toString('utf8')
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          rawHeaders: res.rawHeaders,
          body,
          text,
          json: () => JSON.parse(text) as unknown,
        })
      })
    })
    const body = options.body
    if (body === undefined) req.end()
    else if (typeof body === 'string' || Buffer.isBuffer(body)) req.end(body)
    else pipeline(body, req).catch(reject)
  })
  return within(work, `${options.method ?? 'GET'} ${options.path}`, options.timeoutMs ?? 10_000)
}

/**
 * node:http frames a GET or DELETE body by nothing at all unless told its length; a sized body
 * gets a Content-Length unless the caller set one.
 */
function withLength(
  headers: OutgoingHttpHeaders | readonly string[] | undefined,
  body: HttpOptions['body'],
): OutgoingHttpHeaders | string[] | undefined {
  if (typeof body !== 'string' && !Buffer.isBuffer(body)) {
    return headers as OutgoingHttpHeaders | string[] | undefined
  }
  const length = String(Buffer.byteLength(body))
  if (Array.isArray(headers)) {
    const list = headers as readonly string[]
    const named = list.some(
      (value, index) => index % 2 === 0 && value.toLowerCase() === 'content-length',
    )
    return named ? [...list] : [...list, 'Content-Length', length]
  }
  const object = { ...(headers as OutgoingHttpHeaders | undefined) }
  const named = Object.keys(object).some((name) => name.toLowerCase() === 'content-length')
  return named ? object : { ...object, 'content-length': length }
}

export interface RawResult {
  /** The status line and header block as received. */
  readonly head: string
  readonly status: number
  /** Lowercased names; repeated fields joined with `, `. */
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
}

/**
 * Writes `data` on a new TCP connection and reads one HTTP response (by Content-Length, chunked
 * framing or connection close). Rejects when the connection closes before any response, or after
 * `timeoutMs`.
 */
export async function rawExchange(
  port: number,
  data: string | Buffer,
  timeoutMs = 5_000,
): Promise<RawResult> {
  const socket = connect(port, '127.0.0.1')
  const work = new Promise<RawResult>((resolve, reject) => {
    let received = Buffer.alloc(0)
    const tryParse = (closed: boolean): void => {
      const text = received.toString('latin1')
      const end = text.indexOf('\r\n\r\n')
      if (end === -1) {
        if (closed)
          reject(new Error(`connection closed before a response: ${JSON.stringify(text)}`))
        return
      }
      const head = text.slice(0, end)
      const [statusLine = '', ...lines] = head.split('\r\n')
      const headers: Record<string, string> = {}
      for (const line of lines) {
        const colon = line.indexOf(':')
        const name = line.slice(0, colon).trim().toLowerCase()
        const value = line.slice(colon + 1).trim()
        headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`
      }
      const status = Number(statusLine.split(' ')[1])
      const rest = received.subarray(Buffer.byteLength(head, 'latin1') + 4)
      const length = headers['content-length']
      let body: string | undefined
      if (length !== undefined) {
        if (rest.length >= Number(length)) body = rest.subarray(0, Number(length)).toString('utf8')
      } else if (headers['transfer-encoding']?.includes('chunked') === true) {
        if (rest.toString('latin1').includes('0\r\n\r\n')) body = decodeChunked(rest)
      } else if (closed || status === 204 || status === 304 || status < 200) {
        body = rest.toString('utf8')
      }
      if (body !== undefined) resolve({ head, status, headers, body })
      else if (closed) reject(new Error(`connection closed mid-response: ${JSON.stringify(text)}`))
    }
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk])
      tryParse(false)
    })
    socket.on('error', reject)
    socket.on('close', () => tryParse(true))
    socket.write(data)
  })
  try {
    return await within(
      work,
      `a response to ${JSON.stringify(String(data).slice(0, 60))}`,
      timeoutMs,
    )
  } finally {
    socket.destroy()
  }
}

function decodeChunked(data: Buffer): string {
  const parts: Buffer[] = []
  let at = 0
  for (;;) {
    const lineEnd = data.indexOf('\r\n', at)
    const size = parseInt(data.subarray(at, lineEnd).toString('latin1'), 16)
    if (!(size > 0)) break
    parts.push(data.subarray(lineEnd + 2, lineEnd + 2 + size))
    at = lineEnd + 2 + size + 2
  }
  return Buffer.concat(parts).toString('utf8')
}

/** A request head in HTTP/1.1 wire form; `lines` are header lines without CRLF. */
export function rawRequestHead(method: string, target: string, lines: readonly string[]): string {
  return `${method} ${target} HTTP/1.1\r\n${lines.map((line) => `${line}\r\n`).join('')}\r\n`
}

export interface SseMessage {
  readonly event: string | undefined
  readonly data: string
}

/** Parses Server-Sent Events from a byte stream, yielding each event as soon as it is complete. */
export async function* sseMessages(
  stream: AsyncIterable<Uint8Array | Buffer | string>,
): AsyncGenerator<SseMessage> {
  const decoder = new TextDecoder()
  let buffer = ''
  for await (const chunk of stream) {
    buffer += typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true })
    let end: number
    while ((end = buffer.indexOf('\n\n')) !== -1) {
      const block = buffer.slice(0, end)
      buffer = buffer.slice(end + 2)
      let event: string | undefined
      const data: string[] = []
      for (const line of block.split('\n')) {
        if (line.startsWith('event:')) event = line.slice(6).trim()
        else if (line.startsWith('data:')) data.push(line.slice(5).trimStart())
      }
      yield { event, data: data.join('\n') }
    }
  }
}
