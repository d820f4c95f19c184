/**
 * Upgrades are observed as HTTP requests are, through the real gateway with `ws` clients: one
 * access line when the connection closes (duration, bytes both ways, the route label the decision
 * gives), the in-flight count while the handshake is under way, the same auth-outcome metrics;
 * and the workflow socket's credentials are counted like REST's.
 */
import { createServer, type Socket } from 'node:net'
import t from 'tap'
import { jConfig, jwt, stack } from '../../conformance/fixtures.js'
import { startFoundationGateway } from '../../helpers/foundation.js'
import type { TestGateway } from '../../helpers/gateway.js'
import { metricValue } from '../../helpers/metrics.js'
import { startRuntime } from '../../helpers/runtime.js'
import { waitFor } from '../../helpers/wait.js'
import { refusedHandshake, WsClient } from '../../helpers/websocket.js'

const runtime = await startRuntime(t)
const J = await stack(t, runtime, jConfig({ scope_mappings: { 'GET /ws/echo': ['agents:run'] } }))
const wsUrl = (gateway: TestGateway, path: string) => `${gateway.url.replace(/^http/, 'ws')}${path}`

/** The access lines of upgrades written so far, the ones not yet handed to the log included. */
const upgradeLines = (gateway: TestGateway) => {
  gateway.gateway.flushLogsForExit()
  return gateway.logs.records().filter((record) => record['upgrade'] === 'websocket')
}

const authOutcome = async (labels: Record<string, string>) =>
  metricValue(await J.gateway.metrics(), 'portcullis_auth_outcomes_total', labels) ?? 0

void t.test('an accepted upgrade: its access line at close, with duration and bytes', async (t) => {
  const allowedBefore = await authOutcome({ credential: 'jwt', outcome: 'allowed', reason: 'ok' })
  const token = await jwt(['agents:run'])
  const client = await WsClient.open(t, wsUrl(J.gateway, '/ws/echo'), [], {
    authorization: `Bearer ${token}`,
  })
  client.socket.send('a frame of some length, relayed both ways')
  await client.next()
  t.same(upgradeLines(J.gateway), [], 'nothing is written while the connection is open')
  client.socket.close(1000, 'done')
  await client.waitClosed()
  await waitFor(() => upgradeLines(J.gateway).length === 1, 'the access line at close')
  const line = upgradeLines(J.gateway)[0] ?? {}
  t.match(line, {
    msg: 'request',
    method: 'GET',
    path: '/ws/echo',
    status: 101,
    route: '/ws/echo',
    upgrade: 'websocket',
  })
  t.equal(line['reason'], undefined, 'an accepted upgrade has no reason')
  t.type(line['duration_ms'], 'number')
  t.ok(Number(line['bytes_in']) > 40, 'bytes from the client: the handshake and the frame')
  t.ok(Number(line['bytes_out']) > 40, 'bytes to the client: the 101 and the echo')
  t.equal(
    await authOutcome({ credential: 'jwt', outcome: 'allowed', reason: 'ok' }),
    allowedBefore + 1,
    'counted in portcullis_auth_outcomes_total as an HTTP request is',
  )
})

void t.test('a refused upgrade keeps its raw answer and gets an access line', async (t) => {
  const before = upgradeLines(J.gateway).length
  const deniedBefore = await authOutcome({
    credential: 'credential',
    outcome: 'denied',
    reason: 'credential.missing',
  })
  const reply = await refusedHandshake(t, wsUrl(J.gateway, '/ws/echo'))
  t.equal(reply.status, 401)
  t.match(JSON.parse(reply.body), { detail: 'Authorization header missing' })
  await waitFor(() => upgradeLines(J.gateway).length === before + 1, 'the refusal access line')
  t.match(upgradeLines(J.gateway).at(-1), {
    status: 401,
    reason: 'credential.missing',
    route: '/ws',
    path: '/ws/echo',
  })
  t.equal(
    await authOutcome({
      credential: 'credential',
      outcome: 'denied',
      reason: 'credential.missing',
    }),
    deniedBefore + 1,
  )
})

void t.test('the workflow socket: its credentials counted as REST is', async (t) => {
  const before = {
    allowed: await authOutcome({ credential: 'jwt', outcome: 'allowed', reason: 'ok' }),
    denied: await authOutcome({ credential: 'jwt', outcome: 'denied', reason: 'jwt.signature' }),
  }
  const client = await WsClient.open(t, wsUrl(J.gateway, '/workflows/ws'))
  await client.next('the connected frame')
  const forged = await jwt(['workflows:run'], {
    key: 'another-key-of-enough-length-0123456789abcdef',
  })
  client.socket.send(JSON.stringify({ action: 'authenticate', token: forged }))
  t.match(JSON.parse(String((await client.next()).data)), { event: 'auth_error' })
  client.socket.send(
    JSON.stringify({ action: 'authenticate', token: await jwt(['workflows:run']) }),
  )
  t.match(JSON.parse(String((await client.next()).data)), { event: 'authenticated' })
  t.equal(
    await authOutcome({ credential: 'jwt', outcome: 'denied', reason: 'jwt.signature' }),
    before.denied + 1,
    'the refused frame is a denied outcome',
  )
  t.equal(
    await authOutcome({ credential: 'jwt', outcome: 'allowed', reason: 'ok' }),
    before.allowed + 1,
    'the accepted one an allowed outcome',
  )
  const lines = upgradeLines(J.gateway).length
  client.socket.close()
  await client.waitClosed()
  await waitFor(() => upgradeLines(J.gateway).length === lines + 1, 'its access line at close')
  t.match(upgradeLines(J.gateway).at(-1), { path: '/workflows/ws', status: 101 })
})

void t.test('a handshake is in flight until it is answered', async (t) => {
  // An upstream that holds every connection; a WebSocket handshake is answered when the test says.
  const held: Socket[] = []
  const handshakes: Socket[] = []
  const silent = createServer((socket) => {
    held.push(socket)
    let head = ''
    socket.on('data', (chunk: Buffer) => {
      head += chunk.toString('latin1')
      if (head.includes('\r\n\r\n') && /^upgrade: websocket/im.test(head)) handshakes.push(socket)
    })
  })
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
  t.teardown(() => {
    held.forEach((socket) => socket.destroy())
    silent.close()
  })
  const address = silent.address()
  const port = typeof address === 'object' && address !== null ? address.port : 0
  const gateway = await startFoundationGateway(t, {
    // The handshakes stay pending until the test ends them.
    upstream: { url: `http://127.0.0.1:${port}`, connect_timeout_ms: 120_000 },
  })
  const inFlight = async () =>
    metricValue(await gateway.metrics(), 'portcullis_http_requests_in_flight') ?? 0
  t.equal(await inFlight(), 0)
  const refused = refusedHandshake(t, wsUrl(gateway, '/ws/slow'))
  await waitFor(() => handshakes.length === 1, 'the upstream handshake to be under way')
  t.equal(await inFlight(), 1, 'the upgrade is counted while its handshake is under way')
  t.same(upgradeLines(gateway), [], 'no access line before the answer')
  handshakes[0]?.end('HTTP/1.1 503 Service Unavailable\r\ncontent-length: 4\r\n\r\nbusy')
  t.equal((await refused).status, 503, "the upstream's refusal, relayed")
  await waitFor(() => upgradeLines(gateway).length === 1, 'the access line')
  t.equal(await inFlight(), 0, 'and no longer once it is answered')
  t.match(upgradeLines(gateway)[0], { status: 503, path: '/ws/slow', route: 'other' })
  t.equal(
    upgradeLines(gateway)[0]?.['reason'],
    undefined,
    "the upstream's own answer has no reason",
  )
})
