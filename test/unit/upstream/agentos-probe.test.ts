/**
 * The probe against real HTTP servers: what each kind of upstream answers, and which answers are
 * worth retrying (no connection, a 5xx) and which are final (unreadable).
 */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import t, { type Test } from 'tap'
import { probeAgentOsLine } from '../../../src/upstream/agentos-probe.js'
import { UpstreamClient } from '../../../src/upstream/upstream-client.js'
import { startBlackhole } from '../../helpers/blackhole.js'
import {
  AGENTOS_2_9,
  AGENTOS_3_0,
  startFakeAgentOs,
  type AgentOsFace,
} from '../../helpers/agentos-upstream.js'
import { testConfig } from '../../helpers/gateway.js'
import { closedPort } from '../../helpers/runtime.js'

/** Upstream errors counted for clients: a probe's failures are never among them (last test). */
const counted: string[] = []

function client(t: Test, url: string, upstream: Record<string, unknown> = {}): UpstreamClient {
  const upstreamClient = new UpstreamClient(
    testConfig({ upstream: { url, ...upstream }, auth: { open: true } }).upstream,
    (kind) => counted.push(kind),
  )
  t.teardown(() => upstreamClient.close())
  return upstreamClient
}

async function probe(t: Test, face: AgentOsFace) {
  const upstream = await startFakeAgentOs(t, face)
  const outcome = await probeAgentOsLine(client(t, upstream.url), `127.0.0.1:${upstream.port}`)
  return { outcome, calls: upstream.calls }
}

void t.test('a release number in /info: one request, marked as a probe', async (t) => {
  const twoNine = await probe(t, AGENTOS_2_9)
  t.same(twoNine.outcome, { kind: 'line', line: '2.9', agnoVersion: '2.9.0', basis: 'release' })
  t.same(twoNine.calls, [{ method: 'GET', path: '/info', probe: true }])
  const threeZero = await probe(t, AGENTOS_3_0)
  t.same(threeZero.outcome, {
    kind: 'line',
    line: '3.0',
    agnoVersion: '3.0.0a3',
    basis: 'release',
  })
  t.same((await probe(t, { agnoVersion: '4.0.0' })).outcome, {
    kind: 'unsupported',
    agnoVersion: '4.0.0',
    direction: 'newer',
  })
})

void t.test('agno run from source: /openapi.json decides', async (t) => {
  const threeZero = await probe(t, { ...AGENTOS_3_0, agnoVersion: '0.0.0', osVersion: undefined })
  t.same(threeZero.outcome, { kind: 'line', line: '3.0', agnoVersion: '0.0.0', basis: 'shape' })
  t.same(
    threeZero.calls.map((call) => call.path),
    ['/info', '/openapi.json'],
  )
  const twoNine = await probe(t, { ...AGENTOS_2_9, agnoVersion: '0.0.0' })
  t.same(twoNine.outcome, { kind: 'line', line: '2.9', agnoVersion: '0.0.0', basis: 'shape' })
  const silent = await probe(t, { agnoVersion: '0.0.0', paths: ['/health'] })
  t.match(silent.outcome, { kind: 'unreadable', why: /no route shows which line/ })
})

void t.test('answers that are not what AgentOS sends are unreadable', async (t) => {
  t.same((await probe(t, { info: { status: 404, body: '{"detail":"Not Found"}' } })).outcome, {
    kind: 'unreadable',
    why: 'GET /info answered 404',
  })
  t.same((await probe(t, { info: { status: 200, body: '<html>' } })).outcome, {
    kind: 'unreadable',
    why: 'GET /info did not answer a JSON object',
  })
  const huge = await probe(t, { info: { status: 200, body: `"${'x'.repeat(70_000)}"` } })
  t.same(huge.outcome, { kind: 'unreadable', why: 'GET /info answered more than 65536 bytes' })
})

void t.test('/openapi.json that cannot be read leaves /info alone to decide', async (t) => {
  const answers = new Map<string, [number, string]>([
    ['/info', [200, '{"agno_version":"0.0.0","os_version":"1.0.0"}']],
    ['/openapi.json', [404, '{"detail":"Not Found"}']],
  ])
  const server = createServer((req, res) => {
    const [status, body] = answers.get(req.url ?? '') ?? [500, '']
    res.writeHead(status, { 'content-type': 'application/json' })
    res.end(body)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => {
    server.closeAllConnections()
    server.close()
  })
  const { port } = server.address() as AddressInfo
  const upstreamClient = client(t, `http://127.0.0.1:${port}`)
  const host = `127.0.0.1:${port}`
  t.same(await probeAgentOsLine(upstreamClient, host), {
    kind: 'line',
    line: '3.0',
    agnoVersion: '0.0.0',
    basis: 'shape',
  })
  answers.set('/info', [200, '{"agno_version":"0.0.0"}'])
  answers.set('/openapi.json', [200, '{"openapi":"3.1.0"}'])
  t.match(await probeAgentOsLine(upstreamClient, host), {
    kind: 'unreadable',
    why: /could not be read to show which line/,
  })
  answers.set('/openapi.json', [503, ''])
  t.same(
    await probeAgentOsLine(upstreamClient, host),
    { kind: 'unreachable', why: 'GET /openapi.json answered 503' },
    'a 5xx is an upstream not (yet) answering',
  )
  answers.set('/info', [502, ''])
  t.same(await probeAgentOsLine(upstreamClient, host), {
    kind: 'unreachable',
    why: 'GET /info answered 502',
  })
})

void t.test('no connection, or none in time: unreachable', async (t) => {
  const port = await closedPort()
  t.same(await probeAgentOsLine(client(t, `http://127.0.0.1:${port}`), `127.0.0.1:${port}`), {
    kind: 'unreachable',
    why: 'refused',
  })
  const blackhole = await startBlackhole(t)
  t.same(
    await probeAgentOsLine(client(t, blackhole.url, { connect_timeout_ms: 200 }), 'blackhole'),
    { kind: 'unreachable', why: 'timeout' },
  )
})

void t.test("a probe's failures are not counted as the clients' upstream errors", async (t) => {
  t.same(counted, [])
})
