/**
 * What the dashboard and the logs see: requests Node's parser refuses (never reaching the
 * middleware) are counted and logged with a reason; a client that goes away is 499 and a request
 * cut by shutdown 503, not a phantom 404; at debug level the authentication decision path is
 * logged, never the credential.
 */
import { connect } from 'node:net'
import t from 'tap'
import { startFoundationGateway } from '../../helpers/foundation.js'
import { startGateway } from '../../helpers/gateway.js'
import { fixtures, signJwt } from '../../helpers/jwt.js'
import { metricValue } from '../../helpers/metrics.js'
import { rawExchange, rawRequestHead } from '../../helpers/raw-http.js'
import { startRuntime } from '../../helpers/runtime.js'
import { waitFor } from '../../helpers/wait.js'

type LogRecord = Record<string, unknown>

const requestLines = (records: LogRecord[]): LogRecord[] =>
  records.filter((record) => record.msg === 'request')

void t.test('requests the HTTP parser refuses are counted and logged with a reason', async (t) => {
  const runtime = await startRuntime(t)
  const gateway = await startFoundationGateway(t, {
    upstream: { url: runtime.url },
    server: { headers_timeout_ms: 500, max_header_bytes: 2_048 },
  })
  const oversized = await rawExchange(
    gateway.port,
    rawRequestHead('GET', '/health', ['Host: x', `X-Big: ${'a'.repeat(4_096)}`]),
  )
  t.equal(oversized.status, 431)
  const smuggling = await rawExchange(
    gateway.port,
    'POST /health HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
  )
  t.equal(smuggling.status, 400)
  const bareLf = await rawExchange(gateway.port, 'GET /health HTTP/1.1\nHost: x\n\n')
  t.equal(bareLf.status, 400)
  const slow = await rawExchange(gateway.port, 'GET /health HTTP/1.1\r\nHost: x\r\n', 10_000)
  t.equal(slow.status, 408, 'headers not finished within headers_timeout_ms')

  const metrics = await gateway.metrics()
  const count = (status: string): number | undefined =>
    metricValue(metrics, 'portcullis_http_requests_total', {
      method: 'UNKNOWN',
      route: 'invalid',
      status,
    })
  t.equal(count('431'), 1, 'the oversized header block is counted')
  t.equal(count('400'), 2, 'the smuggling probe and the bare LF are counted')
  t.equal(count('408'), 1, 'the slow client is counted')

  let lines: LogRecord[] = []
  await waitFor(() => {
    lines = requestLines(gateway.logs.records()).filter((record) => record.route === 'invalid')
    return lines.length === 4
  }, 'four access lines')
  t.same(
    lines.map((record) => [record.status, record.reason]),
    [
      [431, 'http.header_overflow'],
      [400, 'http.invalid_transfer_encoding'],
      [400, 'http.invalid_version'],
      [408, 'http.timeout'],
    ],
  )
  t.match(lines[0], { method: 'UNKNOWN', client: '127.0.0.1', req_id: /^[0-9a-f-]{36}$/ })
})

void t.test('a client that goes away is 499 client.gone, not 404', async (t) => {
  const runtime = await startRuntime(t)
  const gateway = await startFoundationGateway(t, { upstream: { url: runtime.url } })
  const socket = connect(gateway.port, '127.0.0.1')
  socket.on('error', () => undefined)
  socket.write(rawRequestHead('GET', '/slow?ms=2000', ['Host: x']))
  await waitFor(() => runtime.started === 1, 'the request to reach the upstream')
  socket.destroy()
  let line: LogRecord | undefined
  await waitFor(() => {
    line = requestLines(gateway.logs.records()).find((record) => record.path === '/slow')
    return line !== undefined
  }, 'the access line of the abandoned request')
  t.match(line, { status: 499, reason: 'client.gone' })
  const metrics = await gateway.metrics()
  t.equal(
    metricValue(metrics, 'portcullis_http_requests_total', { method: 'GET', status: '499' }),
    1,
  )
  t.equal(
    metricValue(metrics, 'portcullis_http_requests_total', { method: 'GET', status: '404' }),
    undefined,
    'no phantom 404',
  )
})

void t.test('a request cut by the shutdown grace period is 503 shutdown.cut', async (t) => {
  const runtime = await startRuntime(t)
  const gateway = await startFoundationGateway(t, {
    upstream: { url: runtime.url },
    server: { shutdown_grace_ms: 200 },
  })
  const socket = connect(gateway.port, '127.0.0.1')
  socket.on('error', () => undefined)
  t.teardown(() => socket.destroy())
  socket.write(rawRequestHead('GET', '/slow?ms=20000', ['Host: x']))
  await waitFor(() => runtime.started === 1, 'the request to reach the upstream')
  await gateway.stop()
  const line = requestLines(gateway.logs.records()).find((record) => record.path === '/slow')
  t.match(line, { status: 503, reason: 'shutdown.cut' })
})

void t.test(
  'debug logging shows the authentication decision path, never the credential',
  async (t) => {
    const runtime = await startRuntime(t)
    const gateway = await startGateway(t, {
      upstream: { url: runtime.url },
      auth: { jwks_file: fixtures.jwksPath, authorization: true },
      logging: { level: 'debug' },
    })
    const token = await signJwt(
      { sub: 'alice', scopes: ['agents:read'], exp: Math.floor(Date.now() / 1000) + 600 },
      { alg: 'RS256', key: fixtures.rsaPrivate(), kid: 'test-key-1' },
    )
    const call = (path: string, credential: string) =>
      fetch(`${gateway.url}${path}`, { headers: { authorization: `Bearer ${credential}` } })
    t.equal((await call('/agents', token)).status, 200)
    t.equal((await call('/agents', token)).status, 200)
    t.equal((await call('/sessions', token)).status, 403)
    t.equal((await call('/agents', `${token}x`)).status, 401)
    t.equal((await call('/agents', 'svc_pat_not-a-real-token')).status, 401)

    const records = gateway.logs.records()
    const decisions = records.filter((record) => record.msg === 'auth decision')
    t.match(decisions, [
      {
        level: 20,
        credential_source: 'header',
        verifier: 'jwt',
        principal: 'jwt',
        user_id: 'alice',
        outcome: 'allowed',
        reason: 'ok',
        route: '/agents',
        req_id: /^[0-9a-f-]{36}$/,
      },
      { verifier: 'jwt', outcome: 'allowed' },
      { verifier: 'jwt', outcome: 'denied', reason: 'rbac.scope' },
      { verifier: 'jwt', outcome: 'denied', reason: /^jwt\./ },
      { verifier: 'service_account', outcome: 'denied', reason: 'service_account.malformed' },
    ])
    t.same(
      records.filter((record) => record.credential === 'jwt').map((record) => record.cache),
      ['miss', 'hit', 'hit'],
      'the verified-JWT cache: a miss, then hits',
    )
    t.notOk(gateway.logs.text.includes(token.split('.')[2] ?? token), 'the token is never logged')
    t.notOk(gateway.logs.text.includes('not-a-real-token'))
  },
)
