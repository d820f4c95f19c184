/**
 * Secrets never leak. One scenario uses every credential type and meets every
 * failure: JWTs (good, forged, expired, in header and cookie), service-account tokens (minted,
 * used, cached, mistyped, unknown, revoked, throttled, during a store outage), the security key,
 * the scheduler token, WebSocket subprotocol and in-band tokens, MCP, upstream failures. Then no
 * token, key, credential cookie value or token hash may appear in the captured logs (trace
 * level), the error bodies, /metrics and /readyz, or anything the upstream received: headers,
 * targets, bodies, socket handshakes and frames. Mint answers, which hand the client its own new
 * token, are the one place a token may appear.
 */
import { createHash, randomBytes } from 'node:crypto'
import t from 'tap'
import { createLogger } from '../../src/logger.js'
import { startGateway, type TestGateway } from '../helpers/gateway.js'
import { LogCapture } from '../helpers/log-capture.js'
import { closedPort, startRuntime } from '../helpers/runtime.js'
import { WsClient } from '../helpers/websocket.js'
import { now } from '../conformance/fixtures.js'
import { badToken } from '../conformance/service-accounts/harness.js'
import {
  bearer,
  jwt,
  K,
  mintToken,
  securedConfig,
  securedGateway,
  send,
  upgrade,
  wsUrl,
  type Sent,
} from './harness.js'

const runtime = await startRuntime(t)
const KEY = `key-${randomBytes(24).toString('hex')}`
const SCHEDULER = `itok-${randomBytes(24).toString('hex')}`
const logging = { level: 'trace' }
const J = await securedGateway(t, runtime, {
  logging,
  auth: { token_source: 'both', internal_service_token: SCHEDULER },
  service_accounts: { enabled: true, max_failed_lookups: 5 },
  interfaces: { workflow_websocket: { enabled: true } },
})
const S = await startGateway(t, {
  logging,
  upstream: { url: runtime.url },
  auth: { security_key: KEY, internal_service_token: SCHEDULER },
  service_accounts: { enabled: false },
})
const broken = await startGateway(t, {
  ...securedConfig(runtime, { logging }),
  upstream: { url: `http://127.0.0.1:${await closedPort()}` },
})

const secrets: string[] = [KEY, SCHEDULER, K]
const bodies: string[] = []
const upstreamSeen: string[] = []
/** Keeps what the client got and what the upstream received, for the scan at the end. */
function keep(sent: Sent): Sent {
  bodies.push(sent.body)
  upstreamSeen.push(JSON.stringify(sent.upstream), JSON.stringify(sent.sockets))
  return sent
}
const get = async (gateway: TestGateway, path: string, lines: string[]) =>
  keep(await send(gateway, runtime, 'GET', path, lines))
const secret = <T extends string>(value: T): T => {
  secrets.push(value)
  return value
}

void t.test('the scenario', async (t) => {
  const alice = secret(await jwt(['agents:read', 'agents:run', 'workflows:run'], { sub: 'alice' }))
  const expired = secret(await jwt(['agents:read'], { sub: 'alice', exp: now() - 3600 }))
  const forged = secret(`${alice.slice(0, -6)}AAAAAA`)
  t.equal((await get(J, '/agents/a1', [bearer(alice)])).status, 200, 'JWT in the header')
  t.equal(
    (await get(J, '/agents/a1', [`Cookie: other=1; access_token=${alice}`])).status,
    200,
    'JWT cookie',
  )
  t.equal((await get(J, '/agents/a1', [bearer(expired)])).status, 401, 'expired')
  t.equal((await get(J, '/agents/a1', [bearer(forged)])).status, 401, 'forged')
  t.equal((await get(J, '/agents/a1', [bearer(alice), bearer(alice)])).status, 400, 'twice')
  t.equal((await get(J, `/agents/a1?access_token=${alice}`, [])).status, 401, 'in the query')
  t.equal((await get(J, '/agents/a1', [bearer(SCHEDULER)])).status, 200, 'scheduler token')
  t.equal((await get(J, '/agents/a1', [bearer(`${SCHEDULER}x`)])).status, 401, 'bad scheduler')

  const robot = await mintToken(J, 'robot', ['agents:read', 'agents:run'])
  const victim = await mintToken(J, 'victim', ['agents:read'])
  secret(robot.token)
  secret(victim.token)
  for (let round = 0; round < 2; round++) {
    t.equal((await get(J, '/agents/a1', [bearer(robot.token)])).status, 200, 'service account')
  }
  t.equal((await get(J, '/agents/a1', [bearer(victim.token)])).status, 200, 'victim cached')
  const admin = secret(await jwt(['os:admin'], { sub: 'ops' }))
  keep(await send(J, runtime, 'DELETE', `/service-accounts/${victim.id}`, [bearer(admin)]))
  t.equal((await get(J, '/agents/a1', [bearer(victim.token)])).status, 401, 'revoked')
  t.equal(
    (
      await get(J, '/agents/a1', [
        bearer(secret(`${robot.token.slice(0, -1)}${robot.token.endsWith('x') ? 'y' : 'x'}`)),
      ])
    ).status,
    401,
  )
  for (let index = 0; index < 6; index++)
    await get(J, '/agents/a1', [bearer(secret(badToken(index)))])
  t.equal((await get(J, '/agents/a1', [bearer(secret(badToken(9)))])).status, 429, 'throttled')
  keep(await send(J, runtime, 'GET', '/service-accounts', [bearer(admin)]))

  const mcp = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'run_agent', arguments: { agent_id: 'a1', message: 'hi' } },
  })
  const mcpLines = [
    'Host: localhost',
    'Content-Type: application/json',
    'Accept: application/json, text/event-stream',
  ]
  for (const token of [alice, robot.token, forged]) {
    keep(await send(J, runtime, 'POST', '/mcp', [...mcpLines, bearer(token)], mcp))
  }

  const offer = (token: string) => `Sec-WebSocket-Protocol: chat, bearer, ${token}`
  t.equal(keep(await upgrade(J, runtime, '/ws/echo', [offer(alice)])).status, 101, 'subprotocol')
  t.equal(
    keep(await upgrade(J, runtime, '/ws/echo', [offer(robot.token), bearer(alice)])).status,
    101,
  )
  t.equal(keep(await upgrade(J, runtime, '/ws/echo', [offer(forged)])).status, 401)
  const socket = await WsClient.open(t, wsUrl(J, '/workflows/ws'), [], {
    cookie: `access_token=${alice}`,
  })
  for (const token of [forged, robot.token, alice]) {
    socket.socket.send(JSON.stringify({ action: 'authenticate', token }))
  }
  socket.socket.send(JSON.stringify({ action: 'start-workflow', workflow_id: 'w1', message: 'go' }))
  const frames: string[] = []
  while (!frames.some((frame) => frame.includes('"workflow_id"')))
    frames.push(String((await socket.next()).data))
  bodies.push(...frames)
  upstreamSeen.push(JSON.stringify(runtime.wsConnections))

  t.equal((await get(S, '/agents/a1', [bearer(KEY)])).status, 200, 'security key')
  t.equal((await get(S, '/agents/a1', [bearer(`${KEY}0`)])).status, 401, 'wrong key')
  t.equal((await get(S, '/agents/a1', [`Authorization: ${KEY}`])).status, 200)
  t.equal((await get(S, '/agents/a1', [bearer(SCHEDULER)])).status, 200, 'scheduler on S')
  t.equal((await get(broken, '/agents/a1', [bearer(alice)])).status, 502, 'upstream down')

  await J.gateway.serviceAccounts?.store.close()
  t.equal((await get(J, '/agents/a1', [bearer(secret(badToken(21)))])).status, 503, 'store outage')
  keep(await send(J, runtime, 'GET', '/service-accounts', [bearer(admin)]))
})

void t.test('no secret in logs, bodies, metrics, readiness or anything upstream', async (t) => {
  const digests = secrets.map((value) => createHash('sha256').update(value).digest('hex'))
  const admin: string[] = []
  for (const gateway of [J, S, broken]) {
    admin.push(await gateway.metrics())
    admin.push(await (await fetch(`${gateway.adminUrl}/readyz`)).text())
  }
  for (const gateway of [J, S, broken]) gateway.gateway.flushLogsForExit()
  const places: [string, string][] = [
    ['logs', [J, S, broken].map((gateway) => gateway.logs.text).join('\n')],
    ['client bodies', bodies.join('\n')],
    ['/metrics and /readyz', admin.join('\n')],
    ['the upstream', upstreamSeen.join('\n')],
  ]
  t.ok(J.logs.lines.length > 30, `${J.logs.lines.length} log lines`)
  t.match(J.logs.text, /"level":20/, 'debug lines were captured')
  t.ok(upstreamSeen.join('').includes('"x-auth-user-id"'), 'the upstream did receive identity')
  for (const [where, text] of places) {
    const found = [
      ...secrets
        .filter((value) => text.includes(value))
        .map((value) => `secret ${value.slice(0, 12)}…`),
      ...digests
        .filter((digest) => text.includes(digest))
        .map((digest) => `hash ${digest.slice(0, 12)}…`),
    ]
    t.same(found, [], `nothing secret in ${where}`)
  }
})

void t.test('a token nested below the redaction depth is dropped, never logged', async (t) => {
  // Regression: structure deeper than the bound used to be logged as it was, unscanned.
  const logs = new LogCapture()
  const token = `svc_pat_${randomBytes(30).toString('hex')}`
  let nested: unknown = { token_in: `Bearer ${token}`, raw: token }
  for (let depth = 0; depth < 12; depth++) nested = { deeper: nested, list: [nested] }
  createLogger({ level: 'info', destination: logs }).warn({ details: nested }, 'deep')
  t.ok(logs.lines.length === 1, 'logged')
  t.notOk(logs.text.includes(token), 'the token is not in the line')
})
