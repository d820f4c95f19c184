/**
 * Which AgentOS line decides requests, through the real gateway in front of real HTTP servers
 * that answer /info, /health and /openapi.json as each AgentOS does: read at start, said in
 * /readyz, the start-up log and the info metric; pinned lines checked against the upstream; an
 * upstream absent at start or restarting as another version.
 */
import t, { type Test } from 'tap'
import { jConfig, jwt } from '../../conformance/fixtures.js'
import {
  AGENTOS_2_9,
  AGENTOS_3_0,
  startFakeAgentOs,
  type AgentOsFace,
  type FakeAgentOs,
} from '../../helpers/agentos-upstream.js'
import { startFoundationGateway } from '../../helpers/foundation.js'
import { startGateway, type ConfigInput, type TestGateway } from '../../helpers/gateway.js'
import { metricValue, parseMetrics } from '../../helpers/metrics.js'
import { httpRequest, rawExchange, rawRequestHead } from '../../helpers/raw-http.js'
import { closedPort } from '../../helpers/runtime.js'
import { waitFor } from '../../helpers/wait.js'

const UNMAPPED = 'Insufficient permissions. No scope mapping covers this route'
const UNKNOWN = { detail: "The upstream's AgentOS version is not known yet" }

async function readiness(gateway: TestGateway): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${gateway.adminUrl}/readyz`)
  return { status: response.status, body: await response.json() }
}

async function agentosInfo(gateway: TestGateway): Promise<Record<string, string>[]> {
  return parseMetrics(await gateway.metrics())
    .filter((sample) => sample.name === 'portcullis_agentos_info' && sample.value === 1)
    .map((sample) => sample.labels)
}

/** A gateway with every route excluded from auth, in front of `upstream`, its line read (auto). */
function autoGateway(t: Test, upstream: { url: string }, more: ConfigInput = {}) {
  return startFoundationGateway(t, {
    ...more,
    upstream: { url: upstream.url, agentos_version: 'auto' },
  })
}

function logged(gateway: TestGateway, msg: string | RegExp): Record<string, unknown> | undefined {
  return gateway.logs
    .records()
    .find((record) => (typeof msg === 'string' ? record.msg === msg : msg.test(String(record.msg))))
}

for (const [face, line, detail] of [
  [AGENTOS_2_9, '2.9', '2.9 (detected: agno 2.9.0)'],
  [AGENTOS_3_0, '3.0', '3.0 (detected: agno 3.0.0a3)'],
  [
    { ...AGENTOS_3_0, agnoVersion: '0.0.0', osVersion: undefined },
    '3.0',
    '3.0 (detected: agno 0.0.0, 3.0 by the shape of /info and /openapi.json)',
  ],
  [
    { ...AGENTOS_2_9, agnoVersion: '0.0.0' },
    '2.9',
    '2.9 (detected: agno 0.0.0, 2.9 by the shape of /info and /openapi.json)',
  ],
] as const satisfies readonly (readonly [AgentOsFace, string, string])[]) {
  void t.test(`auto: ${detail}, in /readyz, the metric and the start-up log`, async (t) => {
    const upstream = await startFakeAgentOs(t, face)
    const gateway = await autoGateway(t, upstream)
    t.equal(gateway.gateway.agentos?.line, line)
    t.same(await readiness(gateway), {
      status: 200,
      body: { status: 'ready', checks: { upstream: 'ok', agentos: detail } },
    })
    t.same(await agentosInfo(gateway), [{ line, version: face.agnoVersion, source: 'detected' }])
    t.match(logged(gateway, 'portcullis listening'), { agentos: detail })
    const response = await httpRequest(gateway.url, { path: '/agents' })
    t.equal(response.status, 200)
    t.same(response.json(), { served_by: face.agnoVersion, method: 'GET', path: '/agents' })
    t.ok(
      upstream.calls.filter((call) => call.path === '/info').every((call) => call.probe),
      'the version is read with marked requests',
    )
  })
}

void t.test('pinned: used at once; a contradicting upstream denies unmapped routes', async (t) => {
  const twoNine = await startFakeAgentOs(t, AGENTOS_2_9)
  const token = await jwt(['agents:read'])
  const pinned = (version: string, auth: ConfigInput = {}) =>
    startGateway(
      t,
      jConfig(auth, {
        upstream: { url: twoNine.url, agentos_version: version },
        logging: { level: 'info' },
      }),
    )
  const unmapped = (gateway: TestGateway) =>
    httpRequest(gateway.url, {
      path: '/unknown/route',
      headers: { authorization: `Bearer ${token}` },
    })

  const matching = await pinned('2.9')
  await waitFor(() => matching.gateway.agentos?.upstream !== undefined, 'the background read')
  t.equal((await unmapped(matching)).status, 200, 'the pinned line matches: unmapped routes pass')
  t.equal(logged(matching, /pins/), undefined, 'no warning')

  const contradicted = await pinned('3.0')
  const warning =
    'upstream.agentos_version pins 3.0, but the upstream reports agno 2.9.0: unless auth.deny_unmapped_routes is set, routes the 3.0 catalogue does not know are denied'
  await waitFor(() => logged(contradicted, warning) !== undefined, 'the mismatch warning')
  t.equal(
    contradicted.logs.records().filter((record) => /pins/.test(String(record.msg))).length,
    1,
    'one line',
  )
  const denied = await unmapped(contradicted)
  t.equal(denied.status, 403)
  t.same(denied.json(), { detail: UNMAPPED })
  t.same(await readiness(contradicted), {
    status: 200,
    body: {
      status: 'ready',
      checks: {
        upstream: 'ok',
        agentos: '3.0 (pinned; upstream reports agno 2.9.0: a mismatch)',
      },
    },
  })
  t.same(await agentosInfo(contradicted), [{ line: '3.0', version: '2.9.0', source: 'pinned' }])

  const explicit = await pinned('3.0', { deny_unmapped_routes: false })
  await waitFor(() => logged(explicit, warning) !== undefined, 'the mismatch warning')
  t.equal((await unmapped(explicit)).status, 200, 'an explicit deny_unmapped_routes: false wins')
})

void t.test('upstream down at start: 503 for everything until its line is read', async (t) => {
  const port = await closedPort()
  const gateway = await startGateway(t, {
    ...jConfig(),
    upstream: { url: `http://127.0.0.1:${port}`, agentos_version: 'auto' },
  })
  t.equal(gateway.gateway.agentos, undefined)
  t.match(logged(gateway, 'portcullis listening'), {
    agentos: 'unknown: the upstream has not answered (refused); retrying',
  })
  const token = await jwt(['os:admin'])
  for (const [method, path, headers] of [
    ['GET', '/agents', { authorization: `Bearer ${token}` }],
    ['GET', '/agents', {}],
    ['GET', '/health', {}],
    ['GET', '/service-accounts', { authorization: `Bearer ${token}` }],
  ] as const) {
    const response = await httpRequest(gateway.url, { method, path, headers })
    t.equal(response.status, 503, `${method} ${path}`)
    t.same(response.json(), UNKNOWN)
    t.equal(response.headers['retry-after'], '5')
    t.type(response.headers['x-request-id'], 'string', 'a request like any other')
  }
  const upgrade = await rawExchange(
    gateway.port,
    rawRequestHead('GET', '/workflows/ws', [
      'Host: gateway',
      'Connection: Upgrade',
      'Upgrade: websocket',
      'Sec-WebSocket-Version: 13',
      'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==',
    ]),
  )
  t.equal(upgrade.status, 503)
  t.same(JSON.parse(upgrade.body), UNKNOWN)
  t.same(await readiness(gateway), {
    status: 503,
    body: {
      status: 'not_ready',
      checks: {
        upstream: 'Upstream unavailable',
        agentos: 'unknown: the upstream has not answered (refused); retrying',
      },
    },
  })
  t.equal(await agentosInfo(gateway).then((info) => info.length), 0, 'no line in force')
  t.equal(
    metricValue(await gateway.metrics(), 'portcullis_http_requests_total', {
      route: '/agents',
      status: '503',
    }),
    2,
    'refusals are counted',
  )

  const upstream = await startFakeAgentOs(t, AGENTOS_3_0, port)
  // The readiness probe seeing the upstream again starts a read; the retries would too.
  await readiness(gateway)
  await waitFor(() => gateway.gateway.agentos?.line === '3.0', 'the line to be read')
  const served = await httpRequest(gateway.url, {
    path: '/agents',
    headers: { authorization: `Bearer ${token}` },
  })
  t.equal(served.status, 200)
  t.same(served.json(), { served_by: '3.0.0a3', method: 'GET', path: '/agents' })
  t.equal((await readiness(gateway)).status, 200)
  t.match(logged(gateway, 'AgentOS line detected'), { agentos: '3.0 (detected: agno 3.0.0a3)' })
  t.ok(upstream.calls.some((call) => call.path === '/info' && call.probe))
})

/** Stops `upstream` and waits until the gateway has noticed that no connection is left. */
async function stopUpstream(gateway: TestGateway, upstream: FakeAgentOs): Promise<void> {
  const before = gateway.logs.lines.length
  await upstream.close()
  await waitFor(
    () =>
      gateway.logs.lines
        .slice(before)
        .some((line) => line.includes('no connection to the upstream is left')),
    'the gateway to notice the closed connections',
  )
}

void t.test(
  'an upstream that restarts as another version: read before the next request',
  async (t) => {
    const first = await startFakeAgentOs(t, AGENTOS_2_9)
    const gateway = await autoGateway(t, first, { logging: { level: 'debug' } })
    t.equal((await httpRequest(gateway.url, { path: '/agents' })).status, 200)

    await stopUpstream(gateway, first)
    const second = await startFakeAgentOs(t, AGENTOS_3_0, first.port)
    const response = await httpRequest(gateway.url, { path: '/agents/a1' })
    t.same(response.json(), { served_by: '3.0.0a3', method: 'GET', path: '/agents/a1' })
    t.same(
      second.calls.map((call) => `${call.path}${call.probe ? ' (probe)' : ''}`),
      ['/info (probe)', '/agents/a1'],
      'the version was read before the request was decided and forwarded',
    )
    t.equal(gateway.gateway.agentos?.line, '3.0')
    t.match(logged(gateway, 'AgentOS line changed'), {
      previous: '2.9',
      agentos: '3.0 (detected: agno 3.0.0a3)',
    })
    t.same(await agentosInfo(gateway), [{ line: '3.0', version: '3.0.0a3', source: 'detected' }])

    // Back as a version no catalogue covers: nothing is decided with the line that was in force.
    await stopUpstream(gateway, second)
    const third = await startFakeAgentOs(
      t,
      { agnoVersion: '3.1.0', osVersion: '1.0.0' },
      first.port,
    )
    const refused = await httpRequest(gateway.url, { path: '/agents/a1' })
    t.equal(refused.status, 503)
    t.same(refused.json(), UNKNOWN)
    t.same(
      third.calls.map((call) => call.path),
      ['/info'],
      'only the read reached it',
    )
    t.match(await readiness(gateway), {
      status: 503,
      body: { checks: { agentos: /^none: the upstream reports agno 3\.1\.0, newer than/ } },
    })
    t.same(await agentosInfo(gateway), [])
  },
)
