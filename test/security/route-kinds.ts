/**
 * The kinds of route every identity and header class is tried on (mapped, unmapped, excluded,
 * preflight), over HTTP and as a WebSocket upgrade, with what the upstream received.
 */
import type { AgentRuntime } from '../../demo/runtime/index.js'
import type { TestGateway } from '../helpers/gateway.js'
import { fieldsOf, send, upgrade, type Sent } from './harness.js'

/** The kinds of route every class is tried on, over HTTP and over a WebSocket upgrade. */
export interface RouteKind {
  readonly name: 'mapped' | 'unmapped' | 'excluded' | 'preflight'
  readonly method: string
  readonly path: string
  readonly ws: string | undefined
  readonly lines: readonly string[]
}

export const ROUTE_KINDS: readonly RouteKind[] = [
  { name: 'mapped', method: 'GET', path: '/agents/a1', ws: '/workflows/ws', lines: [] },
  { name: 'unmapped', method: 'GET', path: '/echo/x', ws: '/ws/echo', lines: [] },
  { name: 'excluded', method: 'GET', path: '/health', ws: undefined, lines: [] },
  {
    name: 'preflight',
    method: 'OPTIONS',
    path: '/agents/a1',
    ws: undefined,
    lines: ['Origin: http://localhost:3000', 'Access-Control-Request-Method: GET'],
  },
]

/** What the upstream received for one request of a route kind, over one transport. */
export interface Delivery {
  readonly label: string
  readonly kind: RouteKind['name']
  readonly transport: 'http' | 'websocket'
  readonly sent: Sent
  /** The header fields the upstream received; undefined when nothing reached it. */
  readonly received: Map<string, string[]> | undefined
}

/**
 * Sends the same extra header lines to every route kind: over HTTP on `gateway`, and as a
 * WebSocket upgrade where the kind has a socket (`excludedWs`, a gateway that excludes
 * `/ws/echo`, gives the excluded kind one). `credential` lines go with every request.
 */
export async function everyRoute(
  gateways: { readonly main: TestGateway; readonly excludedWs?: TestGateway },
  runtime: AgentRuntime,
  lines: readonly string[],
  credential: readonly string[] = [],
): Promise<Delivery[]> {
  const out: Delivery[] = []
  for (const kind of ROUTE_KINDS) {
    const head = [...kind.lines, ...lines, ...credential]
    const sent = await send(gateways.main, runtime, kind.method, kind.path, head)
    const request = sent.upstream[0]
    out.push({
      label: `${kind.name} HTTP ${kind.method} ${kind.path}`,
      kind: kind.name,
      transport: 'http',
      sent,
      received: request === undefined ? undefined : fieldsOf(request.rawHeaders),
    })
    const wsGateway = kind.name === 'excluded' ? gateways.excludedWs : gateways.main
    const wsPath = kind.name === 'excluded' ? '/ws/echo' : kind.ws
    if (wsGateway === undefined || wsPath === undefined) continue
    const ws = await upgrade(wsGateway, runtime, wsPath, [...lines, ...credential])
    const socket = ws.sockets[0]
    out.push({
      label: `${kind.name} WebSocket ${wsPath}`,
      kind: kind.name,
      transport: 'websocket',
      sent: ws,
      received: socket === undefined ? undefined : fieldsOf(socket.headers),
    })
  }
  return out
}

/** The default public routes plus `/ws/echo`: a gateway with an excluded WebSocket route. */
export const EXCLUDED_WS = {
  auth: {
    excluded_route_paths: ['/', '/health', '/info', '/docs', '/redoc', '/openapi.json', '/ws/echo'],
  },
}
