/**
 * Attack class 12 — identity-header spoofing on exempt routes, and values appended instead of
 * replaced: envoy#46586 (healthz rule, disabled route, CORS preflight), kgateway#14711 (addCopy),
 * envoy#35553. Every exempt kind (excluded routes, MCP discovery documents, webhook prefixes,
 * preflights) strips identity and adds none; the admin listener forwards nothing; an
 * authenticated request carries each identity field once, with the verified value.
 */
import t from 'tap'
import { startRuntime } from '../helpers/runtime.js'
import {
  bearer,
  corpus,
  identityOf,
  jwt,
  refused,
  securedGateway,
  send,
  verifiedIdentity,
} from './harness.js'

const runtime = await startRuntime(t)
const gateway = await securedGateway(t, runtime, {
  interfaces: { webhooks: { prefixes: ['/slack'] } },
})
const keyed = await securedGateway(t, runtime, {
  auth: {
    verification_keys: null,
    algorithm: 'RS256',
    authorization: null,
    security_key: 'k-1-security-key-8d2f6b0a4e9c7a1f3b5d',
  },
})
const spoofed = corpus('spoofed-headers.txt').map(([name, value]) => `${name}: ${value}`)
const alice = await jwt(['agents:read'], { sub: 'alice' })
const PREFLIGHT = ['Origin: http://localhost:3000', 'Access-Control-Request-Method: POST']

const EXEMPT: [method: string, path: string, lines: string[]][] = [
  ['GET', '/', []],
  ['GET', '/health', []],
  ['GET', '/info', []],
  ['GET', '/docs/oauth2-redirect', []],
  ['GET', '/.well-known/oauth-protected-resource', []],
  ['POST', '/slack/events', ['Content-Type: application/json']],
  ['OPTIONS', '/agents/a1', PREFLIGHT],
  ['OPTIONS', '/service-accounts', PREFLIGHT],
  ['OPTIONS', '/echo/anything', PREFLIGHT],
]

void t.test('exempt routes: no identity, with a valid token, a forged one or none', async (t) => {
  for (const [method, path, lines] of EXEMPT) {
    for (const credential of [[], [bearer(alice)], [bearer('forged.token.value')]]) {
      const sent = await send(
        gateway,
        runtime,
        method,
        path,
        [...lines, ...spoofed, ...credential],
        method === 'POST' ? '{}' : '',
      )
      t.equal(sent.upstream.length, 1, `${method} ${path}: forwarded`)
      t.same(identityOf(sent.upstream[0]?.rawHeaders ?? []), {}, `${method} ${path}: no identity`)
      t.equal(sent.upstream[0]?.headers.authorization, undefined, 'nor the credential')
    }
  }
})

void t.test(
  '/healthz and /metrics on the proxy port are the upstream routes: not exempt',
  async (t) => {
    for (const path of ['/healthz', '/metrics', '/readyz', '/.well-known/jwks.json']) {
      refused(t, await send(gateway, runtime, 'GET', path, spoofed), 401, undefined, path)
    }
  },
)

void t.test('the admin listener answers itself and forwards nothing', async (t) => {
  runtime.clear()
  for (const path of ['/healthz', '/readyz', '/metrics', '/.well-known/jwks.json']) {
    const response = await fetch(`${gateway.adminUrl}${path}`, {
      headers: Object.fromEntries(spoofed.map((line) => line.split(': ') as [string, string])),
    })
    await response.arrayBuffer()
  }
  // /readyz probes the upstream's /health itself: that request carries no client header.
  for (const request of runtime.requests) {
    t.equal(request.path, '/health', 'only the readiness probe')
    t.same(identityOf(request.rawHeaders), {}, 'with no identity')
  }
})

void t.test('an authenticated request: one value per identity field, never appended', async (t) => {
  for (const path of ['/agents/a1', '/echo/x']) {
    const sent = await send(gateway, runtime, 'GET', path, [...spoofed, ...spoofed, bearer(alice)])
    t.same(
      identityOf(sent.upstream[0]?.rawHeaders ?? []),
      verifiedIdentity('alice', ['agents:read']),
      path,
    )
  }
})

void t.test(
  'a security-key caller has no user id: X-Auth-* dropped, a reserved X-User-ID refused',
  async (t) => {
    const key = bearer('k-1-security-key-8d2f6b0a4e9c7a1f3b5d')
    const sent = await send(keyed, runtime, 'GET', '/echo/x', [
      ...spoofed.filter((line) => !/user.id/i.test(line)),
      key,
    ])
    t.same(identityOf(sent.upstream[0]?.rawHeaders ?? []), { 'x-auth-kind': ['security_key'] })
    for (const name of ['X-User-ID', 'x_user_id', 'X-USER-ID']) {
      for (const value of ['sa:admin', '__scheduler__', '__oauth__:x', 'alice, sa:admin']) {
        refused(
          t,
          await send(keyed, runtime, 'GET', '/echo/x', [`${name}: ${value}`, key]),
          403,
          'Client-supplied user_id may not claim a reserved principal',
          `${name}: ${value}`,
        )
      }
    }
    const excluded = await send(keyed, runtime, 'GET', '/health', ['X-User-ID: sa:admin', key])
    t.same(
      identityOf(excluded.upstream[0]?.rawHeaders ?? []),
      {},
      'on an excluded route it is removed',
    )
  },
)
