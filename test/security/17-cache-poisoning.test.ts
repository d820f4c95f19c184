/**
 * Attack class 17 — authorization cache bypass or poisoning (oathkeeper GHSA-qvp4-rpmr-xwrr: a
 * cached token skipped scope checks; Tyk TT-5486: a shared mutable cached session). The verified
 * JWT cache and the service-account cache remember who a token is, never what it may do: a token
 * cached on a route it may use is still refused on a route needing another scope; a cached
 * principal is never served for another token; revocation and expiry apply while cached.
 */
import t from 'tap'
import { metricValue } from '../helpers/metrics.js'
import { startRuntime } from '../helpers/runtime.js'
import { WsClient } from '../helpers/websocket.js'
import { now } from '../conformance/fixtures.js'
import { seedAccount } from '../conformance/service-accounts/harness.js'
import { bearer, jwt, mintToken, refused, securedGateway, send, upgrade, wsUrl } from './harness.js'

const runtime = await startRuntime(t)
const gateway = await securedGateway(t, runtime, { service_accounts: { enabled: true } })
const userOf = async (token: string, path = '/agents/a1') =>
  (await send(gateway, runtime, 'GET', path, [bearer(token)])).upstream[0]?.headers[
    'x-auth-user-id'
  ]

void t.test('JWT: cached on route A, still refused on a route needing scope B', async (t) => {
  const reader = await jwt(['agents:read'], { sub: 'reader' })
  for (let round = 0; round < 3; round++) t.equal(await userOf(reader), 'reader')
  const hits = metricValue(await gateway.metrics(), 'portcullis_jwt_cache_lookups_total', {
    result: 'hit',
  })
  t.ok((hits ?? 0) >= 2, 'the token is served from the cache')
  refused(
    t,
    await send(gateway, runtime, 'POST', '/agents/a1/runs', [bearer(reader)]),
    403,
    undefined,
    'run',
  )
  refused(
    t,
    await send(gateway, runtime, 'GET', '/config', [bearer(reader)]),
    403,
    undefined,
    'config',
  )
  refused(
    t,
    await send(gateway, runtime, 'GET', '/agents/a2/runs', [bearer(reader)]),
    403,
    undefined,
    'route gate',
  )
  refused(
    t,
    await upgrade(gateway, runtime, '/workflows/ws', [bearer(reader)]),
    403,
    undefined,
    'upgrade',
  )
})

void t.test('JWT: a cached principal is never served for another token', async (t) => {
  const alice = await jwt(['agents:read'], { sub: 'alice' })
  const bob = await jwt(['agents:read'], { sub: 'bob' })
  for (let round = 0; round < 5; round++) {
    t.equal(await userOf(alice), 'alice')
    t.equal(await userOf(bob), 'bob')
  }
  const [header, payload, signature = ''] = alice.split('.')
  const flipped = `${signature.slice(0, -2)}${signature.endsWith('AA') ? 'BB' : 'AA'}`
  const respelled = Buffer.from(`${Buffer.from(header ?? '', 'base64url').toString()} `).toString(
    'base64url',
  )
  const forged = [
    `${header}.${payload}.${flipped}`,
    `${header}.${payload}.`,
    `${respelled}.${payload}.${signature}`,
    `${header}.${payload}.${signature}.`,
    `${header}.${payload}`,
  ]
  for (const token of forged)
    refused(
      t,
      await send(gateway, runtime, 'GET', '/agents/a1', [bearer(token)]),
      401,
      undefined,
      token.slice(-12),
    )
})

void t.test('JWT: expiry is honoured while cached', async (t) => {
  // Inside the 10 s leeway when first used, so it verifies once and then runs out while cached.
  const expiring = await jwt(['agents:read'], { sub: 'alice', exp: now() - 8 })
  t.equal((await send(gateway, runtime, 'GET', '/agents/a1', [bearer(expiring)])).status, 200)
  let status = 200
  const deadline = Date.now() + 15_000
  while (status === 200 && Date.now() < deadline) {
    status = (await send(gateway, runtime, 'GET', '/agents/a1', [bearer(expiring)])).status
    if (status === 200) await new Promise((resolve) => setTimeout(resolve, 100))
  }
  t.equal(status, 401, 'refused once expired')
  refused(
    t,
    await send(gateway, runtime, 'GET', '/agents/a1', [bearer(expiring)]),
    401,
    'Token has expired',
  )
  refused(
    t,
    await upgrade(gateway, runtime, '/ws/echo', [bearer(expiring)]),
    401,
    'Token has expired',
    'upgrade',
  )
})

void t.test(
  'service account: cached on route A, refused on scope B; tokens never mixed',
  async (t) => {
    const reader = await mintToken(gateway, 'reader', ['sessions:read'])
    const other = await mintToken(gateway, 'other', ['sessions:read'])
    for (let round = 0; round < 3; round++) {
      t.equal(await userOf(reader.token, '/sessions'), 'sa:reader')
      t.equal(await userOf(other.token, '/sessions'), 'sa:other')
    }
    refused(
      t,
      await send(gateway, runtime, 'POST', '/agents/a1/runs', [bearer(reader.token)]),
      403,
      undefined,
      'run',
    )
    refused(
      t,
      await send(gateway, runtime, 'GET', '/agents/a1', [bearer(reader.token)]),
      403,
      undefined,
      'agents',
    )
  },
)

void t.test('service account: revoked while cached stops at once, sockets included', async (t) => {
  const victim = await mintToken(gateway, 'victim', ['sessions:read'])
  t.equal(await userOf(victim.token, '/sessions'), 'sa:victim')
  const socket = await WsClient.open(t, wsUrl(gateway, '/ws/echo'), [], {
    authorization: `Bearer ${victim.token}`,
  })
  const admin = await jwt(['os:admin'], { sub: 'ops' })
  const revoked = await send(gateway, runtime, 'DELETE', `/service-accounts/${victim.id}`, [
    bearer(admin),
  ])
  t.equal(revoked.status, 204)
  refused(
    t,
    await send(gateway, runtime, 'GET', '/sessions', [bearer(victim.token)]),
    401,
    'Invalid or expired service account token',
  )
  refused(
    t,
    await upgrade(gateway, runtime, '/ws/echo', [bearer(victim.token)]),
    401,
    undefined,
    'upgrade',
  )
  t.same(await socket.waitClosed(), { code: 1008, reason: 'credential revoked' })
})

void t.test('service account: expired while cached stops at its expiry', async (t) => {
  const expiring = await seedAccount(gateway, 'expiring', ['sessions:read'], now() + 2)
  t.equal(await userOf(expiring.token, '/sessions'), 'sa:expiring')
  const deadline = Date.now() + 10_000
  let status = 200
  while (status === 200 && Date.now() < deadline) {
    status = (await send(gateway, runtime, 'GET', '/sessions', [bearer(expiring.token)])).status
    if (status === 200) await new Promise((resolve) => setTimeout(resolve, 100))
  }
  t.equal(status, 401, 'refused after expires_at, though cached')
})
