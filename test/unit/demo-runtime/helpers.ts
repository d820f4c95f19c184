/** Shared helpers for the demo runtime tests. */
import WebSocket from 'ws'
import {
  startAgentRuntime,
  type AgentRuntime,
  type AgentRuntimeOptions,
} from '../../../demo/runtime/index.js'

interface Teardownable {
  teardown(fn: () => unknown): void
}

export async function startRuntime(
  t: Teardownable,
  options: AgentRuntimeOptions = {},
): Promise<AgentRuntime> {
  const runtime = await startAgentRuntime({ sseIntervalMs: 20, ...options })
  t.teardown(() => runtime.close())
  return runtime
}

export interface SseEvent {
  event: string | undefined
  data: unknown
  /** ms since the request was sent */
  at: number
}

/** Reads a whole SSE response, noting when each event arrived. */
export async function readSse(response: Response, sentAt = Date.now()): Promise<SseEvent[]> {
  const events: SseEvent[] = []
  const decoder = new TextDecoder()
  let buffer = ''
  if (response.body === null) return events
  const reader: ReadableStreamDefaultReader<Uint8Array> = response.body.getReader()
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    // SSE line ends may be CRLF (the MCP transport, as sse-starlette writes them).
    buffer += decoder.decode(read.value, { stream: true }).replaceAll('\r\n', '\n')
    let end: number
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end)
      buffer = buffer.slice(end + 2)
      const field = (name: string) =>
        block
          .split('\n')
          .find((line) => line.startsWith(`${name}: `))
          ?.slice(name.length + 2)
      const data = field('data')
      events.push({
        event: field('event'),
        data: data === undefined ? undefined : JSON.parse(data),
        at: Date.now() - sentAt,
      })
    }
  }
  return events
}

export interface Reply {
  status: number
  headers: Headers
  body: unknown
}

/** One request with an optional JSON body; the answer's body parsed when it is JSON. */
export async function call(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Reply> {
  const init: RequestInit = { method, headers }
  if (body instanceof URLSearchParams || body instanceof FormData) init.body = body
  else if (body !== undefined) {
    init.body = JSON.stringify(body)
    init.headers = { 'content-type': 'application/json', ...headers }
  }
  const response = await fetch(`${base}${path}`, init)
  const text = await response.text()
  const isJson = (response.headers.get('content-type') ?? '').startsWith('application/json')
  return {
    status: response.status,
    headers: response.headers,
    body: isJson ? JSON.parse(text) : text,
  }
}

export function form(fields: Record<string, string>): URLSearchParams {
  return new URLSearchParams(fields)
}

export async function json(response: Response): Promise<unknown> {
  const body: unknown = await response.json()
  return body
}

export interface Frame {
  data: string | Buffer
  isBinary: boolean
}

/** A connected WebSocket with a queue of the frames it has received. */
export class WsClient {
  readonly frames: Frame[] = []
  readonly #waiters: ((frame: Frame) => void)[] = []

  private constructor(readonly socket: WebSocket) {
    socket.on('message', (data: WebSocket.RawData, isBinary: boolean) => {
      const buffer = Array.isArray(data)
        ? Buffer.concat(data)
        : Buffer.isBuffer(data)
          ? data
          : Buffer.from(data)
      const frame = { data: isBinary ? buffer : buffer.toString('utf8'), isBinary }
      const waiter = this.#waiters.shift()
      if (waiter) waiter(frame)
      else this.frames.push(frame)
    })
  }

  static open(t: Teardownable, url: string, protocols?: string[]): Promise<WsClient> {
    const socket = new WebSocket(url, protocols)
    t.teardown(() => socket.terminate())
    const client = new WsClient(socket)
    return new Promise((resolve, reject) => {
      socket.once('open', () => resolve(client))
      socket.once('error', reject)
    })
  }

  next(): Promise<Frame> {
    const frame = this.frames.shift()
    if (frame) return Promise.resolve(frame)
    return new Promise((resolve) => this.#waiters.push(resolve))
  }

  async nextJson(): Promise<unknown> {
    const frame = await this.next()
    const parsed: unknown = JSON.parse(frame.data.toString())
    return parsed
  }

  send(message: unknown): void {
    this.socket.send(typeof message === 'string' ? message : JSON.stringify(message))
  }
}
