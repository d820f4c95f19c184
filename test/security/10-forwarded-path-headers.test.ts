/**
 * Attack class 10 — trusting client-supplied forwarded path and host headers (`X-Original-URL`,
 * `X-Rewrite-URL`, `X-Forwarded-Uri`, `X-Forwarded-Prefix`, `x-envoy-original-path`): oauth2-proxy
 * GHSA-7x63-xv5r-3p2x, Envoy CVE-2023-27487, Traefik CVE-2024-52003, oathkeeper#1003. None of
 * them, nor the client-address and method-override headers other stacks believe, reaches the
 * upstream on any route kind or transport, from any peer; X-Forwarded-* are rebuilt.
 * Corpora: forwarded-path-headers.txt, rebuilt-forwarding-headers.txt.
 */
import t, { type Test } from 'tap'
import { startRuntime } from '../helpers/runtime.js'
import { bearer, corpus, jwt, securedGateway, send } from './harness.js'
import { everyRoute, EXCLUDED_WS, type Delivery } from './route-kinds.js'

const runtime = await startRuntime(t)
const main = await securedGateway(t, runtime)
const excludedWs = await securedGateway(t, runtime, EXCLUDED_WS)
const viaProxy = await securedGateway(t, runtime, { server: { trusted_proxies: ['127.0.0.1'] } })
const alice = bearer(await jwt(['agents:read', 'workflows:read'], { sub: 'alice' }))

function delivered(t: Test, deliveries: readonly Delivery[]): Delivery[] {
  for (const delivery of deliveries) {
    t.ok(delivery.received !== undefined, `${delivery.label}: forwarded`)
  }
  return deliveries.filter((delivery) => delivery.received !== undefined)
}

// One test per header spelling of forwarded-path-headers.txt.
for (const [name = '', value = ''] of corpus('forwarded-path-headers.txt')) {
  void t.test(`${name} never reaches the upstream`, async (t) => {
    const normalized = name.toLowerCase().replaceAll('_', '-')
    const lines = [`${name}: ${value}`]
    for (const delivery of delivered(
      t,
      await everyRoute({ main, excludedWs }, runtime, lines, [alice]),
    )) {
      t.notOk(delivery.received?.has(normalized), `${name} on ${delivery.label}: dropped`)
    }
  })
}

void t.test('the path authorized is the one forwarded, whatever the headers claim', async (t) => {
  const lines = corpus('forwarded-path-headers.txt').map(([name, value]) => `${name}: ${value}`)
  const sent = await send(main, runtime, 'GET', '/health', lines)
  t.equal(sent.upstream[0]?.path, '/health')
  t.equal(sent.upstream[0]?.method, 'GET', 'no method override either')
  const denied = await send(main, runtime, 'GET', '/config', lines)
  t.equal(denied.status, 401, 'a protected route stays protected')
  t.equal(denied.started, 0)
})

void t.test('a trusted proxy cannot pass them either', async (t) => {
  for (const [name = '', value = ''] of corpus('forwarded-path-headers.txt')) {
    const sent = await send(viaProxy, runtime, 'GET', '/health', [`${name}: ${value}`])
    t.notOk(sent.upstream[0]?.headers[name.toLowerCase().replaceAll('_', '-')], `${name}: dropped`)
  }
})

void t.test('rebuilt-forwarding-headers.txt: rebuilt from what the gateway saw', async (t) => {
  for (const [name = '', value = '', expected = ''] of corpus('rebuilt-forwarding-headers.txt')) {
    const [field = '', want = ''] = expected.split('=')
    for (const delivery of delivered(
      t,
      await everyRoute({ main, excludedWs }, runtime, [`${name}: ${value}`], [alice]),
    )) {
      const got = delivery.received?.get(field) ?? []
      t.same(got, want === '' ? [] : [want], `${name} on ${delivery.label}: ${expected}`)
    }
  }
})
