/** Routes HTTP upgrades to the WebSocket endpoints and records every accepted connection. */
import type { IncomingMessage, Server } from 'node:http'
import type { Duplex } from 'node:stream'
import { WebSocketServer, type WebSocket } from 'ws'
import type { AppState } from '../context.js'
import { parseTarget, stripTrailingSlashes } from '../target.js'
import type { RecordedWsConnection } from '../types.js'
import { handleEchoSocket, selectEchoProtocol } from './echo.js'
import { toBuffer } from './frames.js'
import { handleWorkflowsSocket } from './workflows.js'

interface Endpoint {
  server: WebSocketServer
  handle(socket: WebSocket): void
}

const NOT_FOUND =
  'HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\nContent-Length: 22\r\nConnection: close\r\n\r\n{"detail":"Not Found"}'

function offeredProtocols(req: IncomingMessage): string[] {
  const header = req.headers['sec-websocket-protocol'] ?? ''
  return header
    .split(',')
    .map((protocol) => protocol.trim())
    .filter((protocol) => protocol !== '')
}

export function attachWebSockets(
  server: Server,
  app: AppState,
  record: (connection: RecordedWsConnection) => void,
): { close(): void } {
  const options = { noServer: true, perMessageDeflate: false } as const
  const endpoints = new Map<string, Endpoint>([
    [
      '/workflows/ws',
      {
        // AgentOS accepts without a subprotocol
        server: new WebSocketServer({ ...options, handleProtocols: () => false }),
        handle: (socket) => handleWorkflowsSocket(socket, app),
      },
    ],
    [
      '/ws/echo',
      {
        server: new WebSocketServer({ ...options, handleProtocols: selectEchoProtocol }),
        handle: handleEchoSocket,
      },
    ],
  ])

  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy())
    const path = stripTrailingSlashes(parseTarget(req.url ?? '/').path)
    const endpoint = endpoints.get(path)
    if (endpoint === undefined) {
      socket.end(NOT_FOUND, () => socket.destroy())
      return
    }
    endpoint.server.handleUpgrade(req, socket, head, (ws) => {
      const connection: RecordedWsConnection = {
        path: parseTarget(req.url ?? '/').path,
        headers: { ...req.headers },
        protocols: offeredProtocols(req),
        selectedProtocol: ws.protocol,
        received: [],
      }
      record(connection)
      ws.on('error', () => ws.terminate())
      ws.on('message', (data, isBinary) => {
        connection.received.push(isBinary ? toBuffer(data) : toBuffer(data).toString('utf8'))
      })
      endpoint.handle(ws)
    })
  })

  return {
    close() {
      for (const { server: wss } of endpoints.values()) {
        for (const client of wss.clients) client.terminate()
        wss.close()
      }
    },
  }
}
