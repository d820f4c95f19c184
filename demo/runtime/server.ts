import { randomBytes } from 'node:crypto'
import { createServer } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import type { AppState } from './context.js'
import { LINES } from './lines.js'
import { handleHttpRequest } from './pipeline.js'
import { buildRouter } from './routes/index.js'
import { McpSessions } from './routes/mcp-protocol.js'
import { DemoStore } from './store.js'
import type {
  AgentRuntime,
  AgentRuntimeOptions,
  RecordedRequest,
  RecordedWsConnection,
} from './types.js'
import { ComponentCatalog } from './v3/catalog.js'
import { JobQueue } from './v3/jobs.js'
import { ScheduleStore } from './v3/schedules.js'
import { attachWebSockets } from './ws/upgrade.js'

export async function startAgentRuntime(options: AgentRuntimeOptions = {}): Promise<AgentRuntime> {
  const host = options.host ?? '127.0.0.1'
  const line = options.agentos ?? '2.9'
  const app: AppState = {
    settings: {
      osId: options.osId ?? 'demo-os',
      sseIntervalMs: options.sseIntervalMs ?? 50,
      jsonLimitBytes: options.jsonLimitBytes ?? 1024 * 1024,
      instantiatedAt: Date.now() / 1000,
      agentos: line,
      agnoVersion: options.agnoVersion ?? LINES[line].agnoVersion,
      baseUrl: '',
      internalServiceToken: randomBytes(24).toString('base64url'),
    },
    store: new DemoStore(),
    jobs: new JobQueue(),
    schedules: new ScheduleStore(),
    catalog: new ComponentCatalog(),
    mcpSessions: new McpSessions(),
  }
  const router = buildRouter(line)
  const requests: RecordedRequest[] = []
  const wsConnections: RecordedWsConnection[] = []
  let started = 0

  const server = createServer({ noDelay: true })
  const sockets = new Set<Socket>()
  server.on('connection', (socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  server.on('request', (req, res) => {
    // The gateway's own reads of the AgentOS version are not requests it forwarded.
    const probe = req.headers['x-portcullis-probe'] !== undefined
    if (!probe) started += 1
    handleHttpRequest(req, res, {
      app,
      router,
      record: (request) => (probe ? undefined : requests.push(request)),
    })
  })
  const webSockets = attachWebSockets(server, app, (connection) => wsConnections.push(connection))

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject)
      resolve()
    })
  })
  const { port } = server.address() as AddressInfo
  const authority = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`
  app.settings.baseUrl = `http://${authority}`
  let closing: Promise<void> | undefined

  return {
    url: app.settings.baseUrl,
    wsUrl: `ws://${authority}`,
    port,
    requests,
    wsConnections,
    get started() {
      return started
    },
    clear() {
      requests.length = 0
      wsConnections.length = 0
      started = 0
    },
    close() {
      closing ??= new Promise<void>((resolve) => {
        webSockets.close()
        server.close(() => resolve())
        for (const socket of sockets) socket.destroy()
      })
      return closing
    },
  }
}
