import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import WebSocket, { WebSocketServer, type RawData } from 'ws'
import { infoOf, SUITE_AGENTOS_FACE } from './agentos-upstream.js'
import type { Teardown } from './gateway.js'
import { within } from './wait.js'

export interface Frame {
  readonly data: string | Buffer
  readonly isBinary: boolean
}

export interface Closed {
  readonly code: number
  readonly reason: string
}

function toBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data
  if (Array.isArray(data)) return Buffer.concat(data)
  return Buffer.from(data)
}

/** A client WebSocket with a queue of received frames and a promise of its close. */
export class WsClient {
  readonly frames: Frame[] = []
  readonly closed: Promise<Closed>
  readonly #waiters: ((frame: Frame) => void)[] = []

  private constructor(readonly socket: WebSocket) {
    socket.on('message', (data: RawData, isBinary: boolean) => {
      const buffer = toBuffer(data)
      const frame = { data: isBinary ? buffer : buffer.toString('utf8'), isBinary }
      const waiter = this.#waiters.shift()
      if (waiter !== undefined) waiter(frame)
      else this.frames.push(frame)
    })
    this.closed = new Promise((resolve) => {
      socket.once('close', (code, reason) => resolve({ code, reason: reason.toString('utf8') }))
    })
  }

  static async open(
    t: Teardown,
    url: string,
    protocols: string[] = [],
    headers: Record<string, string> = {},
  ): Promise<WsClient> {
    const socket = new WebSocket(url, protocols, { headers, perMessageDeflate: false })
    t.teardown(() => socket.terminate())
    const client = new WsClient(socket)
    await within(
      new Promise<void>((resolve, reject) => {
        socket.once('open', () => resolve())
        socket.once('error', reject)
      }),
      `a WebSocket to ${url}`,
    )
    return client
  }

  next(what = 'a frame'): Promise<Frame> {
    const frame = this.frames.shift()
    if (frame !== undefined) return Promise.resolve(frame)
    return within(new Promise((resolve) => this.#waiters.push(resolve)), what)
  }

  waitClosed(what = 'the WebSocket to close'): Promise<Closed> {
    return within(this.closed, what)
  }
}

/** The status and body of a refused handshake, as the `ws` client sees them. */
export async function refusedHandshake(
  t: Teardown,
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string; headers: IncomingHttpHeaders }> {
  const socket = new WebSocket(url, { headers })
  t.teardown(() => socket.terminate())
  return within(
    new Promise((resolve, reject) => {
      socket.once('open', () => reject(new Error('the handshake was accepted')))
      socket.once('unexpected-response', (_request, response) => {
        const chunks: Buffer[] = []
        response.on('data', (chunk: Buffer) => chunks.push(chunk))
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            body: Buffer.concat(chunks).toString('utf8'),
            headers: response.headers,
          }),
        )
        response.on('error', reject)
      })
      socket.once('error', reject)
    }),
    `a refused handshake at ${url}`,
  )
}

export interface UpstreamConnection {
  readonly path: string
  readonly headers: IncomingHttpHeaders
  readonly protocol: string
  readonly received: Frame[]
  /** Set when the connection closes: the code and reason this end received. */
  closed?: Closed
}

/**
 * A WebSocket upstream that records how each connection closes (the demo runtime does not).
 * Echoes frames; the text `close:<code>:<reason>` makes it close with that code.
 */
export async function startWsUpstream(
  t: Teardown,
  options: { choosesProtocol?: boolean } = {},
): Promise<{ url: string; port: number; connections: UpstreamConnection[] }> {
  // By default the first offered subprotocol is chosen; `choosesProtocol: false` accepts without
  // choosing any, as AgentOS's /workflows/ws does.
  const chooses = options.choosesProtocol ?? true
  // Plain HTTP gets 426, as from ws's own server, except the gateway's reads of the AgentOS
  // version, answered as the AgentOS of the suite's line answers them.
  const http = createServer((req, res) => {
    const probe = req.headers['x-portcullis-probe'] !== undefined
    res.writeHead(probe ? 200 : 426, { 'content-type': probe ? 'application/json' : 'text/plain' })
    res.end(probe ? JSON.stringify(infoOf(SUITE_AGENTOS_FACE)) : 'Upgrade Required')
  })
  const server = new WebSocketServer({
    server: http,
    perMessageDeflate: false,
    handleProtocols: (protocols) => (chooses ? ([...protocols][0] ?? false) : false),
  })
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', () => resolve()))
  const connections: UpstreamConnection[] = []
  server.on('connection', (socket, req) => {
    const connection: UpstreamConnection = {
      path: req.url ?? '',
      headers: req.headers,
      protocol: socket.protocol,
      received: [],
    }
    connections.push(connection)
    socket.on('message', (data: RawData, isBinary: boolean) => {
      const buffer = toBuffer(data)
      connection.received.push({ data: isBinary ? buffer : buffer.toString('utf8'), isBinary })
      const command = isBinary ? null : /^close:(\d+):(.*)$/s.exec(buffer.toString('utf8'))
      if (command !== null) socket.close(Number(command[1]), command[2])
      else socket.send(buffer, { binary: isBinary })
    })
    socket.on('close', (code, reason) => {
      connection.closed = { code, reason: reason.toString('utf8') }
    })
    socket.on('error', () => socket.terminate())
  })
  t.teardown(
    () =>
      new Promise<void>((resolve) => {
        for (const client of server.clients) client.terminate()
        server.close()
        http.closeAllConnections()
        http.close(() => resolve())
      }),
  )
  const { port } = http.address() as AddressInfo
  return { url: `http://127.0.0.1:${port}`, port, connections }
}
