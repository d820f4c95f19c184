/**
 * Resource limits around service accounts, in one file as they need a store:
 * a `svc_pat_` token over `auth.max_token_bytes` is refused without a lookup; /service-accounts
 * bodies are bounded by `server.max_body_bytes` (413) and `server.max_json_depth` (400, where a
 * deep body used to be a 500); and many distinct client addresses cannot grow the failed-lookup
 * throttle past `service_accounts.throttle_max_clients` (LRU): driven through a trusted proxy
 * with 200 distinct X-Forwarded-For addresses, a table of 20 forgets the oldest. The table's size
 * is not exported (src/service-accounts/ keeps it private), so the bound is shown by eviction.
 */
import t from 'tap'
import { badToken } from '../conformance/service-accounts/harness.js'
import { metricValue } from '../helpers/metrics.js'
import { rawRequestHead } from '../helpers/raw-http.js'
import { startRuntime } from '../helpers/runtime.js'
import { bearer, jwt, refused, securedGateway, send, sendRaw, upgrade } from './harness.js'

const runtime = await startRuntime(t)
const gateway = await securedGateway(t, runtime, {
  server: { trusted_proxies: ['127.0.0.1'], max_body_bytes: 4_096, max_json_depth: 32 },
  auth: { max_token_bytes: 1_024 },
  service_accounts: { enabled: true, max_failed_lookups: 2, throttle_max_clients: 20 },
})

void t.test('an oversized svc_pat_ token is refused without a store lookup', async (t) => {
  const misses = async () =>
    metricValue(await gateway.metrics(), 'portcullis_service_account_cache_misses_total') ?? 0
  const before = await misses()
  const long = `svc_pat_${'A'.repeat(1_100)}`
  const lines = [bearer(long), 'X-Forwarded-For: 203.0.113.99']
  refused(t, await send(gateway, runtime, 'GET', '/agents/a1', lines), 401, undefined, 'HTTP')
  refused(t, await upgrade(gateway, runtime, '/ws/echo', lines), 401, undefined, 'upgrade')
  t.equal(await misses(), before, 'no lookup')
})

void t.test(
  '/service-accounts bodies: 413 above max_body_bytes, 400 nested too deeply',
  async (t) => {
    const admin = bearer(await jwt(['os:admin'], { sub: 'ops' }))
    const lines = [admin, 'Content-Type: application/json', 'X-Forwarded-For: 203.0.113.98']
    const body = (value: string) => `{"name":"n","scopes":[],"x":${value}}`
    const big = body(JSON.stringify('x'.repeat(4_096)))
    refused(
      t,
      await send(gateway, runtime, 'POST', '/service-accounts', lines, big),
      413,
      undefined,
      'declared',
    )
    const head = rawRequestHead('POST', '/service-accounts', [
      'Host: h',
      ...lines,
      'Transfer-Encoding: chunked',
    ])
    const chunked = `${Buffer.byteLength(big).toString(16)}\r\n${big}\r\n0\r\n\r\n`
    refused(t, await sendRaw(gateway, runtime, head + chunked), 413, undefined, 'chunked')
    for (const depth of [33, 2_000]) {
      const deep = body(`${'['.repeat(depth)}${']'.repeat(depth)}`)
      const sent = await send(gateway, runtime, 'POST', '/service-accounts', lines, deep)
      refused(t, sent, 400, 'JSON body nested too deeply', `${depth} deep`)
    }
    const shallow = await send(
      gateway,
      runtime,
      'POST',
      '/service-accounts',
      lines,
      body('[[[1]]]'),
    )
    t.equal(shallow.status, 201, 'within the limits it is read')
  },
)

let guess = 0
const fail = async (address: string) =>
  (
    await send(gateway, runtime, 'GET', '/sessions', [
      bearer(badToken(3 * guess++)),
      `X-Forwarded-For: ${address}`,
    ])
  ).status

void t.test('a client over its budget is limited while the table remembers it', async (t) => {
  t.same(
    [await fail('192.0.2.1'), await fail('192.0.2.1'), await fail('192.0.2.1')],
    [401, 401, 429],
  )
  for (let index = 0; index < 19; index++) await fail(`198.51.100.${index}`)
  t.equal(await fail('192.0.2.1'), 429, 'with 19 other clients tracked it is still limited')
})

void t.test(
  '200 distinct addresses: the table keeps the newest 20 and forgets the rest',
  async (t) => {
    t.equal(await fail('192.0.2.2'), 401)
    t.equal(await fail('192.0.2.2'), 401)
    t.equal(await fail('192.0.2.2'), 429, 'limited')
    for (let index = 0; index < 200; index++) {
      await fail(`2001:db8:${(index >> 8).toString(16)}:${(index & 0xff).toString(16)}::1`)
    }
    t.equal(
      await fail('192.0.2.2'),
      401,
      'evicted by newer clients: the table did not grow past its bound',
    )
    const last = `2001:db8:0:c7::1`
    t.same([await fail(last), await fail(last)], [401, 429], 'one of the newest is remembered')
  },
)
