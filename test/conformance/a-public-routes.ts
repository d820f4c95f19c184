/**
 * Checklist part A: public routes, normalisation, preflight, CORS (J unless noted), on the AgentOS
 * line of the test file (line.ts).
 */
import t from 'tap'
import {
  forwarded,
  identityHeadersSeen,
  ids,
  jConfig,
  oConfig,
  jwt,
  refused,
  sConfig,
  withDatabase,
} from './fixtures.js'
import { lineRuntime, partLine, stackOnLine } from './line.js'

const line = partLine()
const runtime = await lineRuntime(t)
const J = await stackOnLine(t, runtime, jConfig())
const S = await stackOnLine(t, runtime, sConfig())
const O = await stackOnLine(t, runtime, oConfig(withDatabase(t)))

const CORS_HEADERS = [
  'access-control-allow-origin',
  'access-control-allow-credentials',
  'access-control-allow-methods',
  'access-control-allow-headers',
  'access-control-expose-headers',
]

void t.test('AUTH-4 GET /health without a credential → 200 {"status":"ok",…}', async (t) => {
  const reply = await J.call('GET', '/health')
  forwarded(t, reply, 200, '/health')
  t.match(reply.body, { status: 'ok' })
  t.same(identityHeadersSeen(reply.upstream), [], 'no identity reaches the upstream')
})

void t.test(
  'INFO-1 GET /info without a credential: auth_mode jwt (J), security_key (S), none (O)',
  async (t) => {
    for (const [fixture, mode] of [
      [J, 'jwt'],
      [S, 'security_key'],
      [O, 'none'],
    ] as const) {
      const reply = await fixture.call('GET', '/info')
      forwarded(t, reply, 200, '/info')
      t.match(reply.body, { auth_mode: mode, os_id: 'demo-os' }, `auth_mode ${mode}`)
    }
  },
)

void t.test('AUTH-4 GET /, /docs, /redoc, /openapi.json without a credential → 200', async (t) => {
  for (const path of ['/', '/docs', '/redoc', '/openapi.json']) {
    forwarded(t, await J.call('GET', path), 200, path)
  }
})

if (line === '3.0') {
  void t.test(
    'INFO-1 3.0: GET / is the upstream’s own index; /info adds os_version beside agno_version',
    async (t) => {
      const home = await J.call('GET', '/')
      forwarded(t, home, 200, '/')
      t.strictSame(home.body, { name: 'AgentOS', health: '/health', info: '/info', docs: '/docs' })
      const info = await J.call('GET', '/info')
      t.match(info.body, { auth_mode: 'jwt', agno_version: '3.0.0a3', os_version: '1.0.0' })
    },
  )
}

void t.test('PATH-1 GET /health/ → 200, the body of /health, no redirect', async (t) => {
  const plain = await J.call('GET', '/health')
  const slashed = await J.call('GET', '/health/')
  t.equal(slashed.status, 200)
  t.equal(slashed.headers.location, undefined, 'no redirect')
  t.same(slashed.body, plain.body)
  t.equal(slashed.upstream?.path, '/health', 'the canonical path is what was forwarded')
})

void t.test('PATH-1 GET /agents/ with JWT(agents:read) → 200, the list of /agents', async (t) => {
  const token = await jwt(['agents:read'])
  const slashed = await J.call('GET', '/agents/', { token })
  forwarded(t, slashed, 200, '/agents')
  t.same(ids(slashed.body), ['a1', 'a2'])
  t.same(slashed.body, (await J.call('GET', '/agents', { token })).body)
})

void t.test(
  'AUTH-4 OPTIONS /agents preflight without a credential → not 401: forwarded, so the answer is the upstream CORS layer’s (the demo runtime has none and says 405)',
  async (t) => {
    const reply = await J.call('OPTIONS', '/agents', {
      headers: { origin: 'http://localhost:3000', 'access-control-request-method': 'GET' },
    })
    t.not(reply.status, 401)
    forwarded(t, reply, 405, '/agents')
    t.equal(reply.upstream?.method, 'OPTIONS')
    t.same(identityHeadersSeen(reply.upstream), [])
  },
)

void t.test(
  'AUTH-5 GET /agents without a credential, Origin http://localhost:3000 → 401 with the five CORS headers',
  async (t) => {
    const reply = await J.call('GET', '/agents', { headers: { origin: 'http://localhost:3000' } })
    refused(t, reply, 401, 'Authorization header missing')
    t.same(
      CORS_HEADERS.map((name) => reply.headers[name]),
      ['http://localhost:3000', 'true', '*', '*', '*'],
    )
  },
)

void t.test(
  'AUTH-5 the same with Origin http://evil.com → 401 without any CORS header',
  async (t) => {
    const reply = await J.call('GET', '/agents', { headers: { origin: 'http://evil.com' } })
    refused(t, reply, 401, 'Authorization header missing')
    t.same(
      Object.keys(reply.headers).filter((name) => name.startsWith('access-control-')),
      [],
    )
  },
)

void t.test(
  'ROUTE-2 GET /Agents (wrong case) with JWT([]) → 404 Not Found from the upstream (no mapping)',
  async (t) => {
    const reply = await J.call('GET', '/Agents', { token: await jwt([]) })
    forwarded(t, reply, 404, '/Agents')
    t.equal(reply.detail, 'Not Found')
  },
)
