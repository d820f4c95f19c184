/**
 * Attack class 13 — the hop-by-hop `Connection:` header deleting injected headers (Traefik
 * CVE-2024-45410 and CVE-2021-32813, envoy#44525 skipped on upgrade). Corpus
 * connection-options.txt on every route kind, HTTP and WebSocket: identity fields listed in
 * Connection never take the verified ones with them; a listed field the gateway decided on is
 * refused with 400, as `Connection: content-type` would let FastAPI read a text/plain body as
 * JSON whose user_id the gateway never pinned (regression test of that fix).
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
import { everyRoute, EXCLUDED_WS } from './route-kinds.js'

const runtime = await startRuntime(t)
const main = await securedGateway(t, runtime)
const excludedWs = await securedGateway(t, runtime, EXCLUDED_WS)
const SCOPES = ['agents:read', 'workflows:read', 'sessions:write']
const alice = bearer(await jwt(SCOPES, { sub: 'alice' }))
const spoofed = corpus('spoofed-headers.txt').map(([name, value]) => `${name}: ${value}`)

void t.test('connection-options.txt on every route kind', async (t) => {
  for (const [listed = '', expected = '', why = ''] of corpus('connection-options.txt')) {
    const lines = [`Connection: ${listed}`, ...spoofed]
    for (const delivery of await everyRoute({ main, excludedWs }, runtime, lines, [alice])) {
      const label = `${why} (${listed}) on ${delivery.label}`
      if (expected === '400') {
        refused(t, delivery.sent, 400, 'Bad Request', label)
        continue
      }
      const identity = identityOf(
        Object.fromEntries(delivery.received ?? new Map<string, string[]>()),
      )
      const authenticated = delivery.kind === 'mapped' || delivery.kind === 'unmapped'
      t.same(identity, authenticated ? verifiedIdentity('alice', SCOPES) : {}, label)
    }
  }
})

void t.test('a body whose Content-Type is listed in Connection never goes unpinned', async (t) => {
  const body = JSON.stringify({ user_id: 'victim', session_name: 'x' })
  for (const type of ['text/plain', 'application/octet-stream', 'application/json']) {
    const sent = await send(
      main,
      runtime,
      'POST',
      '/sessions',
      [`Content-Type: ${type}`, 'Connection: close, Content-Type', alice],
      body,
    )
    refused(t, sent, 400, 'Bad Request', type)
  }
  const honest = await send(
    main,
    runtime,
    'POST',
    '/sessions',
    ['Content-Type: application/json', alice],
    body,
  )
  t.same((honest.upstream[0]?.json as { user_id?: unknown }).user_id, 'alice', 'pinned when honest')
})
