import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { Metrics } from '../metrics.js'
import { evaluateReadiness, type ReadinessCheck } from './readiness.js'

export interface AdminDeps {
  readonly metrics: Metrics
  readonly readiness: readonly ReadinessCheck[]
  /** False once shutdown has begun, so that load balancers stop sending traffic. */
  readonly accepting: () => boolean
  /** Extra JSON documents served at fixed paths (the identity-assertion JWKS). */
  readonly documents?: ReadonlyMap<string, () => unknown>
}

/**
 * The admin listener: /healthz (the process is up), /readyz (dependencies reachable), /metrics
 * (the gateway's own registry). On its own port because the upstream owns GET /metrics.
 */
export function createAdminServer(deps: AdminDeps): Server {
  return createServer((req, res) => {
    route(deps, req, res).catch(() => {
      if (!res.headersSent) sendJson(res, 500, { detail: 'Internal Server Error' })
      else res.destroy()
    })
  })
}

async function route(deps: AdminDeps, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const path = (req.url ?? '/').split('?')[0]
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    sendJson(res, 405, { detail: 'Method Not Allowed' })
    return
  }
  if (path === '/healthz') {
    sendJson(res, 200, { status: 'ok' })
  } else if (path === '/readyz') {
    const report = await evaluateReadiness(deps.readiness, 2_000, (check, result) =>
      deps.metrics.readinessChecks.inc({ check, result }),
    )
    const ready = report.ready && deps.accepting()
    const checks = deps.accepting() ? report.checks : { ...report.checks, shutdown: 'in progress' }
    sendJson(res, ready ? 200 : 503, { status: ready ? 'ready' : 'not_ready', checks })
  } else if (path === '/metrics') {
    const body = await deps.metrics.render()
    res.writeHead(200, { 'content-type': deps.metrics.registry.contentType })
    res.end(body)
  } else if (path !== undefined && deps.documents?.has(path) === true) {
    sendJson(res, 200, deps.documents.get(path)?.())
  } else {
    sendJson(res, 404, { detail: 'Not Found' })
  }
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const payload = JSON.stringify(body)
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(payload),
  })
  res.end(payload)
}
