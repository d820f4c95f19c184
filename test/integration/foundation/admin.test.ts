import t from 'tap'
import { startFoundationGateway } from '../../helpers/foundation.js'
import { metricValue, parseMetrics, settledMetrics } from '../../helpers/metrics.js'
import { httpRequest } from '../../helpers/raw-http.js'
import { closedPort, startRuntime } from '../../helpers/runtime.js'
import { pinnedLine } from '../../helpers/suite-line.js'
import { waitFor, within } from '../../helpers/wait.js'

void t.test('/healthz answers 200 while the process is up, whatever the upstream', async (t) => {
  const port = await closedPort()
  const gateway = await startFoundationGateway(t, { upstream: { url: `http://127.0.0.1:${port}` } })
  const response = await fetch(`${gateway.adminUrl}/healthz`)
  t.equal(response.status, 200)
  t.same(await response.json(), { status: 'ok' })
  t.equal((await fetch(`${gateway.adminUrl}/healthz`, { method: 'POST' })).status, 405)
  t.equal((await fetch(`${gateway.adminUrl}/nothing-here`)).status, 404)
})

void t.test('/readyz follows the upstream', async (t) => {
  const runtime = await startRuntime(t)
  const gateway = await startFoundationGateway(t, { upstream: { url: runtime.url } })
  // Each check is bounded (2 s) inside the gateway; on a loaded machine a first attempt may miss it.
  let ready = await fetch(`${gateway.adminUrl}/readyz`)
  const deadline = Date.now() + 15_000
  while (ready.status !== 200 && Date.now() < deadline) {
    await ready.arrayBuffer()
    ready = await fetch(`${gateway.adminUrl}/readyz`)
  }
  t.equal(ready.status, 200)
  const body = (await ready.json()) as { status: string; checks: Record<string, string> }
  t.same(Object.keys(body.checks), ['upstream', 'agentos'])
  t.match(body, {
    status: 'ready',
    checks: { upstream: 'ok', agentos: pinnedLine('; upstream ') },
  })
  t.ok(
    runtime.requests.some((request) => request.path === '/health'),
    "the check asked the upstream's /health",
  )

  await runtime.close()
  const down = await fetch(`${gateway.adminUrl}/readyz`)
  t.equal(down.status, 503)
  const failing = (await down.json()) as { status: string; checks: Record<string, string> }
  t.equal(failing.status, 'not_ready')
  t.ok(
    failing.checks.upstream !== undefined && failing.checks.upstream !== 'ok',
    'the upstream check is named as failing',
  )
  t.notMatch(JSON.stringify(failing), /ECONNREFUSED|127\.0\.0\.1|\bat /, 'no internals')
})

void t.test('/readyz is 503 for an upstream that was never there', async (t) => {
  const port = await closedPort()
  const gateway = await startFoundationGateway(t, { upstream: { url: `http://127.0.0.1:${port}` } })
  const response = await fetch(`${gateway.adminUrl}/readyz`)
  t.equal(response.status, 503)
  t.match(await response.json(), { status: 'not_ready', checks: { upstream: String } })
})

void t.test('/readyz turns 503 as soon as shutdown begins', async (t) => {
  const runtime = await startRuntime(t)
  const gateway = await startFoundationGateway(t, {
    upstream: { url: runtime.url },
    server: { shutdown_grace_ms: 20_000 },
  })
  const inFlight = httpRequest(gateway.url, { path: '/slow?ms=2000' })
  await waitFor(() => runtime.started === 1, 'the slow request to reach the upstream')
  const stopping = gateway.stop()
  const response = await fetch(`${gateway.adminUrl}/readyz`)
  t.equal(response.status, 503, 'load balancers are told to stop sending traffic')
  t.match(await response.json(), { status: 'not_ready', checks: { shutdown: 'in progress' } })
  t.equal((await within(inFlight, 'the in-flight request')).status, 200)
  await within(stopping, 'the gateway to stop')
})

void t.test('/metrics counts requests by method, route family and status', async (t) => {
  const runtime = await startRuntime(t)
  const gateway = await startFoundationGateway(t, { upstream: { url: runtime.url } })
  await httpRequest(gateway.url, { path: '/agents' })
  await httpRequest(gateway.url, { path: '/agents/a1' })
  await httpRequest(gateway.url, { path: '/agents/zz' })
  await httpRequest(gateway.url, {
    method: 'POST',
    path: '/agents/a1/runs',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'message=hi',
  })
  await httpRequest(gateway.url, { path: '/sessions' })
  await httpRequest(gateway.url, { path: '/user-7f3a9c/profile' })
  await httpRequest(gateway.url, { path: '/agents/../admin' })
  await settledMetrics(gateway, 7)

  const slow = httpRequest(gateway.url, { path: '/slow?ms=2000' })
  await waitFor(() => runtime.started === 7, 'the slow request to reach the upstream')
  const during = await gateway.metrics()
  t.equal(metricValue(during, 'portcullis_http_requests_in_flight'), 1, 'one request in flight')
  await slow

  const response = await fetch(`${gateway.adminUrl}/metrics`)
  t.equal(response.status, 200)
  t.match(response.headers.get('content-type'), /^text\/plain/)
  await response.arrayBuffer()
  const text = await settledMetrics(gateway, 8)
  const count = (labels: Record<string, string>): number | undefined =>
    metricValue(text, 'portcullis_http_requests_total', labels)
  t.equal(count({ method: 'GET', route: '/agents', status: '200' }), 2)
  t.equal(count({ method: 'GET', route: '/agents', status: '404' }), 1)
  t.equal(count({ method: 'POST', route: '/agents', status: '200' }), 1)
  t.equal(count({ method: 'GET', route: '/sessions', status: '200' }), 1)
  t.equal(
    count({ method: 'GET', route: 'other', status: '404' }),
    1,
    'unknown families are "other"',
  )
  t.equal(
    count({ method: 'GET', route: 'invalid', status: '400' }),
    1,
    'refused paths are "invalid"',
  )
  t.equal(count({ method: 'GET', route: 'other', status: '200' }), 1, '/slow')
  t.notMatch(text, /user-7f3a9c|admin|\/agents\/a1/, 'no raw path in any label')

  t.equal(
    metricValue(text, 'portcullis_http_request_duration_seconds_count', {
      method: 'GET',
      route: '/agents',
    }),
    3,
  )
  t.ok(
    metricValue(text, 'portcullis_http_request_duration_seconds_bucket', {
      method: 'GET',
      route: '/agents',
      le: '+Inf',
    }),
    'latency buckets',
  )
  const slowSum = metricValue(text, 'portcullis_http_request_duration_seconds_sum', {
    method: 'GET',
    route: 'other',
  })
  t.ok(
    slowSum !== undefined && slowSum >= 0.8,
    `the slow request's latency is counted (${slowSum})`,
  )
  t.equal(metricValue(text, 'portcullis_upstream_response_seconds_count', { route: '/agents' }), 4)
  t.ok(
    metricValue(text, 'portcullis_upstream_response_seconds_bucket', {
      route: '/agents',
      le: '+Inf',
    }),
  )
  t.equal(metricValue(text, 'portcullis_http_requests_in_flight'), 0, 'nothing in flight any more')
  t.equal(
    metricValue(text, 'portcullis_upstream_response_seconds_count', { route: 'invalid' }),
    undefined,
    'a refused request never went upstream',
  )
})

void t.test('process metrics are exposed when collected', async (t) => {
  const runtime = await startRuntime(t)
  const withProcess = await startFoundationGateway(
    t,
    { upstream: { url: runtime.url } },
    {},
    { collectProcessMetrics: true },
  )
  const names = new Set(parseMetrics(await withProcess.metrics()).map((sample) => sample.name))
  for (const name of [
    'portcullis_process_resident_memory_bytes',
    'portcullis_process_cpu_user_seconds_total',
    'portcullis_nodejs_eventloop_lag_seconds',
    'portcullis_nodejs_heap_size_used_bytes',
  ]) {
    t.ok(names.has(name), name)
  }
  const without = await startFoundationGateway(t, { upstream: { url: runtime.url } })
  t.notMatch(
    await without.metrics(),
    /portcullis_process_resident_memory_bytes/,
    'off when not asked for',
  )
})

void t.test("the main port's /metrics belongs to the upstream", async (t) => {
  const runtime = await startRuntime(t)
  const gateway = await startFoundationGateway(t, { upstream: { url: runtime.url } })
  const response = await httpRequest(gateway.url, { path: '/metrics' })
  t.equal(response.status, 200)
  t.match(response.json(), { route: 'GET /metrics' }, "the upstream's answer")
  t.notMatch(response.text, /portcullis_/, "not the gateway's registry")
  t.equal(runtime.requests.at(-1)?.path, '/metrics')

  // And the admin port proxies nothing.
  const before = runtime.started
  t.equal((await fetch(`${gateway.adminUrl}/agents`)).status, 404)
  t.equal(runtime.started, before, 'the admin listener never reaches the upstream')
})
