import type { ServerResponse } from 'node:http'

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent || res.destroyed) return
  const text = JSON.stringify(body)
  res.writeHead(status, {
    ...headers,
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
  })
  res.end(text)
}

/** FastAPI's error shape: `{"detail": ...}` */
export function sendDetail(res: ServerResponse, status: number, detail: unknown): void {
  sendJson(res, status, { detail })
}

export function sendEmpty(res: ServerResponse, status: number): void {
  if (res.headersSent || res.destroyed) return
  res.writeHead(status)
  res.end()
}

export function sendHtml(res: ServerResponse, status: number, html: string): void {
  if (res.headersSent || res.destroyed) return
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'content-length': Buffer.byteLength(html),
  })
  res.end(html)
}

export interface SseStream {
  /** writes one event; a string is sent as is, anything else as JSON */
  send(data: unknown, event?: string): void
  end(): void
}

/** `lineEnd`: sse-starlette (AgentOS's MCP transport) ends every line with CRLF. */
export function startSse(
  res: ServerResponse,
  headers: Record<string, string> = {},
  lineEnd: '\n' | '\r\n' = '\n',
): SseStream {
  res.writeHead(200, {
    ...headers,
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  })
  res.flushHeaders()
  return {
    send(data, event) {
      if (res.destroyed || res.writableEnded) return
      const payload = typeof data === 'string' ? data : JSON.stringify(data)
      const head = event === undefined ? '' : `event: ${event}${lineEnd}`
      res.write(`${head}data: ${payload}${lineEnd}${lineEnd}`)
    },
    end() {
      if (!res.destroyed && !res.writableEnded) res.end()
    },
  }
}

/** Resolves true after `ms`, or false as soon as `signal` aborts. */
export function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false)
  return new Promise((resolve) => {
    const onAbort = (): void => {
      clearTimeout(timer)
      resolve(false)
    }
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort)
      resolve(true)
    }, ms)
    signal.addEventListener('abort', onAbort, { once: true })
  })
}

export interface SseEvent {
  event?: string
  data: unknown
}

/** Writes events one by one with a pause between them; stops if the client goes away. */
export async function writeSseSequence(
  res: ServerResponse,
  events: SseEvent[],
  intervalMs: number,
  signal: AbortSignal,
): Promise<void> {
  const sse = startSse(res)
  for (const [index, { event, data }] of events.entries()) {
    if (index > 0 && !(await sleep(intervalMs, signal))) return
    sse.send(data, event)
  }
  sse.end()
}
