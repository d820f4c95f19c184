import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import type { Teardown } from './gateway.js'
import { onSuiteLine } from './suite-line.js'

/** What a fake AgentOS publishes about itself. */
export interface AgentOsFace {
  /** `agno_version` in /info; absent when undefined. */
  readonly agnoVersion?: string
  /** `os_version` in /info (3.0 adds it); absent when undefined. */
  readonly osVersion?: string
  /** The `paths` of /openapi.json. */
  readonly paths?: readonly string[]
  /** Answers GET /info with this instead of the JSON document. */
  readonly info?: { readonly status: number; readonly body: string }
}

const COMMON_PATHS = ['/health', '/info', '/config', '/agents', '/agents/{agent_id}/runs']

/** AgentOS 2.9.0 as its /info and /openapi.json show it (base router with /models, A2A mounted). */
export const AGENTOS_2_9: AgentOsFace = {
  agnoVersion: '2.9.0',
  paths: [...COMMON_PATHS, '/models', '/a2a/message/send'],
}

/** AgentOS 3.0.0a3: `os_version` in /info, component restore and the metrics refresh status. */
export const AGENTOS_3_0: AgentOsFace = {
  agnoVersion: '3.0.0a3',
  osVersion: '1.0.0',
  paths: [...COMMON_PATHS, '/components/{component_id}/restore', '/metrics/refresh/status'],
}

/** The AgentOS of the suite's line, as its /info and /openapi.json show it. */
export const SUITE_AGENTOS_FACE: AgentOsFace = onSuiteLine({
  '2.9': AGENTOS_2_9,
  '3.0': AGENTOS_3_0,
})

/** `GET /info` as the AgentOS `face` plays answers it (unless `face.info` replaces it). */
export function infoOf(face: AgentOsFace): Record<string, unknown> {
  const info: Record<string, unknown> = { os_id: 'fake-os', auth_mode: 'none', agent_count: 1 }
  if (face.agnoVersion !== undefined) info.agno_version = face.agnoVersion
  if (face.osVersion !== undefined) info.os_version = face.osVersion
  return info
}

export interface RecordedCall {
  readonly method: string
  readonly path: string
  /** Marked as the gateway's own read of the version. */
  readonly probe: boolean
}

export interface FakeAgentOs {
  readonly url: string
  readonly port: number
  /** Every request, in arrival order. */
  readonly calls: RecordedCall[]
  /** Stops listening and cuts every connection, as a process that exits. */
  close(): Promise<void>
}

/**
 * A real HTTP server on port 0 (or `port`, to come back at the same address) that answers
 * `/info`, `/health` and `/openapi.json` as the AgentOS it plays does, and every other request
 * with 200 `{"served_by": <agno_version>, "method", "path"}`.
 */
export async function startFakeAgentOs(
  t: Teardown,
  face: AgentOsFace,
  port = 0,
): Promise<FakeAgentOs> {
  const calls: RecordedCall[] = []
  const sockets = new Set<Socket>()
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/'
    calls.push({
      method: req.method ?? 'GET',
      path,
      probe: req.headers['x-portcullis-probe'] !== undefined,
    })
    req.resume()
    req.on('end', () => answer(face, path, req, res))
  })
  server.on('connection', (socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, '127.0.0.1', () => resolve())
  })
  const bound = (server.address() as AddressInfo).port
  let closing: Promise<void> | undefined
  const close = (): Promise<void> => {
    closing ??= new Promise<void>((resolve) => {
      server.close(() => resolve())
      for (const socket of sockets) socket.destroy()
    })
    return closing
  }
  t.teardown(close)
  return { url: `http://127.0.0.1:${bound}`, port: bound, calls, close }
}

function answer(face: AgentOsFace, path: string, req: IncomingMessage, res: ServerResponse): void {
  if (path === '/info' && face.info !== undefined) {
    res.writeHead(face.info.status, { 'content-type': 'application/json' })
    res.end(face.info.body)
    return
  }
  if (path === '/info') {
    json(res, infoOf(face))
  } else if (path === '/health') {
    json(res, { status: 'ok' })
  } else if (path === '/openapi.json') {
    const paths = Object.fromEntries((face.paths ?? []).map((route) => [route, { get: {} }]))
    json(res, { openapi: '3.1.0', info: { title: 'Agno API' }, paths })
  } else {
    json(res, { served_by: face.agnoVersion ?? 'unknown', method: req.method, path })
  }
}

function json(res: ServerResponse, body: unknown): void {
  const text = JSON.stringify(body)
  res.writeHead(200, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
  })
  res.end(text)
}
