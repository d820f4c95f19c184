import t, { type Test } from 'tap'
import { startBlackhole } from '../../helpers/blackhole.js'
import { startFoundationGateway } from '../../helpers/foundation.js'
import type { TestGateway } from '../../helpers/gateway.js'
import { accessLogRecord } from '../../helpers/log-records.js'
import { metricValue } from '../../helpers/metrics.js'
import { httpRequest, type HttpResult } from '../../helpers/raw-http.js'
import { closedPort, startRuntime } from '../../helpers/runtime.js'
import { waitFor, within } from '../../helpers/wait.js'
import { refusedHandshake } from '../../helpers/websocket.js'

const UNAVAILABLE = '{"detail":"Upstream unavailable"}'
const TIMED_OUT = '{"detail":"Upstream timed out"}'
const INFO = 30
const WARN = 40
/** RFC 2606: a name that never resolves. */
const UNRESOLVABLE_HOST = 'portcullis-upstream.invalid'

/** The error body is exactly the JSON detail: no stack, no error code, no address of the upstream. */
function assertNoInternals(t: Test, response: HttpResult, upstreamPort: number): void {
  t.match(response.headers['content-type'], /^application\/json/)
  for (const leak of [
    /ECONN|EPIPE|ETIMEDOUT|UND_ERR/i,
    /\bat \S+ \(/,
    /127\.0\.0\.1/,
    new RegExp(`:${upstreamPort}\\b`),
    /undici|stack|Error:/i,
  ]) {
    t.notMatch(response.text, leak, `no ${leak.source} in the body`)
    t.notMatch(JSON.stringify(response.headers), leak, `no ${leak.source} in the headers`)
  }
}

async function upstreamErrors(gateway: TestGateway, kind: string): Promise<number> {
  return metricValue(await gateway.metrics(), 'portcullis_upstream_errors_total', { kind }) ?? 0
}

void t.test('an upstream that refuses connections gives 502 without internals', async (t) => {
  const port = await closedPort()
  const gateway = await startFoundationGateway(t, { upstream: { url: `http://127.0.0.1:${port}` } })
  const get = await httpRequest(gateway.url, { path: '/agents' })
  t.equal(get.status, 502)
  t.equal(get.text, UNAVAILABLE)
  assertNoInternals(t, get, port)
  t.equal(await upstreamErrors(gateway, 'refused'), 1)
  t.match(await accessLogRecord(gateway.logs, get.headers['x-request-id']), {
    level: WARN,
    status: 502,
    path: '/agents',
    reason: 'upstream.refused',
  })
})

void t.test(
  'an upstream host name that does not resolve is a dns failure, not refused',
  async (t) => {
    const gateway = await startFoundationGateway(t, {
      upstream: { url: `http://${UNRESOLVABLE_HOST}:7777` },
    })
    const response = await httpRequest(gateway.url, { path: '/agents' })
    t.equal(response.status, 502)
    t.equal(response.text, UNAVAILABLE)
    t.equal(await upstreamErrors(gateway, 'dns'), 1, 'kind="dns"')
    t.equal(await upstreamErrors(gateway, 'refused'), 0, 'not kind="refused"')
    t.match(await accessLogRecord(gateway.logs, response.headers['x-request-id']), {
      level: WARN,
      status: 502,
      reason: 'upstream.dns',
    })
  },
)

void t.test('a TLS handshake that fails is a tls failure', async (t) => {
  // An https upstream URL pointing at a plain-HTTP server: the handshake cannot succeed.
  const runtime = await startRuntime(t)
  const gateway = await startFoundationGateway(t, {
    upstream: { url: `https://127.0.0.1:${runtime.port}` },
  })
  const response = await httpRequest(gateway.url, { path: '/agents' })
  t.equal(response.status, 502)
  t.equal(response.text, UNAVAILABLE)
  assertNoInternals(t, response, runtime.port)
  t.equal(await upstreamErrors(gateway, 'tls'), 1, 'kind="tls"')
  t.match(await accessLogRecord(gateway.logs, response.headers['x-request-id']), {
    level: WARN,
    reason: 'upstream.tls',
  })
})

void t.test(
  'a WebSocket handshake to an unreachable upstream is counted like a request',
  async (t) => {
    const port = await closedPort()
    const gateway = await startFoundationGateway(t, {
      upstream: { url: `http://127.0.0.1:${port}` },
    })
    const refused = await refusedHandshake(t, `${gateway.url.replace('http', 'ws')}/ws/echo`)
    t.equal(refused.status, 502)
    t.equal(await upstreamErrors(gateway, 'refused'), 1)
    await waitFor(
      () => gateway.logs.records().some((record) => record['upgrade'] === 'websocket'),
      'the refused upgrade to be logged',
    )
    t.match(
      gateway.logs.records().find((record) => record['upgrade'] === 'websocket'),
      { msg: 'request', level: WARN, status: 502, reason: 'upstream.refused', path: '/ws/echo' },
      'its access line, at warn',
    )
  },
)

void t.test('a failing readiness probe is counted apart from request traffic', async (t) => {
  const port = await closedPort()
  const gateway = await startFoundationGateway(t, { upstream: { url: `http://127.0.0.1:${port}` } })
  for (let probe = 0; probe < 3; probe += 1) {
    const ready = await fetch(`${gateway.adminUrl}/readyz`)
    t.equal(ready.status, 503)
    t.match(await ready.json(), {
      checks: { upstream: 'refused: the upstream refused the connection (nothing listens)' },
    })
  }
  const metrics = await gateway.metrics()
  for (const kind of ['dns', 'refused', 'unreachable', 'reset', 'timeout', 'tls', 'other'])
    t.equal(metricValue(metrics, 'portcullis_upstream_errors_total', { kind }) ?? 0, 0, kind)
  t.equal(
    metricValue(metrics, 'portcullis_readiness_checks_total', {
      check: 'upstream',
      result: 'refused',
    }),
    3,
    'each probe counted, with what happened',
  )
  await gateway.stop() // hands over every pending access line
  t.equal(
    gateway.logs.records().filter((record) => record.msg === 'request').length,
    0,
    'and no request line',
  )
})

void t.test(
  'a request with a body to an unreachable upstream gets its 502 or 504 too',
  async (t) => {
    // The client's body is still unread when the connection to the upstream fails: the client must
    // get the same JSON answer as a body-less request, not a dropped connection.
    const port = await closedPort()
    const refused = await startFoundationGateway(t, {
      upstream: { url: `http://127.0.0.1:${port}` },
    })
    for (const body of ['message=hello', 'x'.repeat(200_000)]) {
      const response = await httpRequest(refused.url, {
        method: 'POST',
        path: '/agents/a1/runs',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body,
      }).catch((error: unknown) => error as Error)
      if (response instanceof Error) {
        t.fail(`an answer, not ${response.message} (${body.length} bytes)`)
        continue
      }
      t.equal(response.status, 502)
      t.equal(response.text, UNAVAILABLE)
    }
    t.equal(await upstreamErrors(refused, 'refused'), 2)

    const blackhole = await startBlackhole(t)
    const hanging = await startFoundationGateway(t, {
      upstream: { url: blackhole.url, connect_timeout_ms: 300, response_timeout_ms: 60_000 },
    })
    const response = await httpRequest(hanging.url, {
      method: 'PUT',
      path: '/echo',
      body: 'payload',
      timeoutMs: 10_000,
    }).catch((error: unknown) => error as Error)
    if (response instanceof Error) {
      t.fail(`an answer, not ${response.message}`)
    } else {
      t.equal(response.status, 504)
      t.equal(response.text, TIMED_OUT)
    }
  },
)

void t.test('an upstream that resets the connection gives 502', async (t) => {
  const runtime = await startRuntime(t)
  const gateway = await startFoundationGateway(t, { upstream: { url: runtime.url } })
  const response = await httpRequest(gateway.url, { path: '/destroy' })
  t.equal(response.status, 502)
  t.equal(response.text, UNAVAILABLE)
  assertNoInternals(t, response, runtime.port)
  t.equal(await upstreamErrors(gateway, 'reset'), 1)
  // The pool recovers: the next request is served.
  t.equal((await httpRequest(gateway.url, { path: '/health' })).status, 200)
})

void t.test('an upstream slower than response_timeout_ms gives 504', async (t) => {
  const runtime = await startRuntime(t)
  const gateway = await startFoundationGateway(t, {
    upstream: { url: runtime.url, response_timeout_ms: 200 },
  })
  // The upstream would answer after 30 s: only the gateway's timeout can answer within the wait.
  const response = await httpRequest(gateway.url, { path: '/slow?ms=30000', timeoutMs: 15_000 })
  t.equal(response.status, 504)
  t.equal(response.text, TIMED_OUT)
  assertNoInternals(t, response, runtime.port)
  t.equal(await upstreamErrors(gateway, 'timeout'), 1)
  // Fast enough is fine.
  t.equal((await httpRequest(gateway.url, { path: '/slow?ms=10' })).status, 200)
})

void t.test(
  'an upstream that never accepts the connection gives 504 (connect timeout)',
  async (t) => {
    const blackhole = await startBlackhole(t)
    const gateway = await startFoundationGateway(t, {
      upstream: { url: blackhole.url, connect_timeout_ms: 300, response_timeout_ms: 60_000 },
    })
    // Only the connect timeout can answer within the bounded wait: the response timeout is 60 s.
    const response = await within(
      httpRequest(gateway.url, { path: '/agents', timeoutMs: 20_000 }),
      'the connect timeout',
      10_000,
    )
    t.equal(response.status, 504)
    t.equal(response.text, TIMED_OUT)
    assertNoInternals(t, response, blackhole.port)
    t.equal(await upstreamErrors(gateway, 'timeout'), 1)
  },
)

void t.test(
  'a stream that goes silent past idle_timeout_ms is cut, not left hanging',
  async (t) => {
    const runtime = await startRuntime(t)
    const gateway = await startFoundationGateway(t, {
      upstream: { url: runtime.url, idle_timeout_ms: 300 },
    })
    const response = await fetch(`${gateway.url}/stream?events=3&interval_ms=30000`)
    t.equal(response.status, 200, 'the headers were already sent')
    const reading = response.text()
    // The body cannot complete (the upstream needs 60 s); the gateway must end it within the wait.
    const outcome = await within(
      reading.then(
        (text) => ({ ended: 'cleanly', text }),
        (error: unknown) => ({ ended: 'with an error', text: String(error) }),
      ),
      'the gateway to cut the silent stream',
      15_000,
    )
    t.equal(outcome.ended, 'with an error', 'the client can tell the stream was cut')
    t.notMatch(outcome.text, /"index":2/)
  },
)

void t.test('upstream error statuses are answers, not upstream failures', async (t) => {
  const runtime = await startRuntime(t)
  const gateway = await startFoundationGateway(t, { upstream: { url: runtime.url } })
  for (const code of [500, 502, 503, 504]) {
    const response = await httpRequest(gateway.url, { path: `/status/${code}` })
    t.equal(response.status, code)
    t.match(response.json(), { status: code }, "the upstream's own body")
    const line = await accessLogRecord(gateway.logs, response.headers['x-request-id'])
    t.equal(line.level, INFO, `the upstream's ${code} is logged at info`)
    t.equal(line.reason, undefined, 'with no reason of the gateway')
  }
  const metrics = await gateway.metrics()
  for (const kind of ['dns', 'refused', 'unreachable', 'reset', 'timeout', 'tls', 'other']) {
    t.equal(metricValue(metrics, 'portcullis_upstream_errors_total', { kind }) ?? 0, 0, kind)
  }
})
