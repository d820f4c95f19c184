import t from 'tap'
import { mintToken } from '../../../src/service-accounts/token-format.js'
import { failure, verifierFixture } from './verifier-fixture.js'

const statuses = async (attempts: Promise<unknown>[]) =>
  Promise.all(
    attempts.map(async (attempt) => ((await failure(attempt)) as { status: number }).status),
  )

void t.test('25 bad tokens from one address: the 21st is 429 with Retry-After', async (t) => {
  const { verify, mint, clock } = verifierFixture()
  const { token } = await mint()
  const results: unknown[] = []
  for (let index = 0; index < 25; index += 1)
    results.push(await failure(verify(mintToken().token, '203.0.113.9')))
  t.same(
    results.map((error) => (error as { status: number }).status),
    [...Array<number>(20).fill(401), ...Array<number>(5).fill(429)],
  )
  t.match(results[20], {
    code: 'THROTTLED',
    detail: 'Too many failed authentication attempts',
    reason: 'service_account.throttled',
    headers: { 'Retry-After': '60' },
  })
  // The five 429s used this second's lookups for the limited address (throttled_lookups_per_second).
  t.match(await failure(verify(token, '203.0.113.9')), { status: 429 })
  clock.advance(1_000)
  t.match(
    await verify(token, '203.0.113.9'),
    { kind: 'service_account' },
    'a valid token from a limited address passes within a second',
  )
  t.equal(
    ((await failure(verify('svc_pat_short', '203.0.113.10'))) as { status: number }).status,
    401,
  )

  clock.advance(29_000)
  t.match(await failure(verify(mintToken().token, '203.0.113.9')), {
    headers: { 'Retry-After': '30' },
  })
  clock.advance(30_000)
  t.match(
    await failure(verify(mintToken().token, '203.0.113.9')),
    { status: 401 },
    'refusals were not recorded, so the window drained',
  )
})

void t.test('addresses taking turns are each throttled on their own count', async (t) => {
  const { verify } = verifierFixture()
  const loud: number[] = []
  const quiet: number[] = []
  for (let index = 0; index < 22; index += 1) {
    loud.push(
      ((await failure(verify(mintToken().token, '203.0.113.7'))) as { status: number }).status,
    )
    if (index % 2 === 0) {
      quiet.push(
        ((await failure(verify(mintToken().token, '198.51.100.7'))) as { status: number }).status,
      )
    }
  }
  t.same(loud, [...Array<number>(20).fill(401), 429, 429])
  t.same(quiet, Array<number>(11).fill(401), 'eleven failures of its own: not limited')
  t.match(
    await failure(verify(mintToken().token, '2001:db8:1:2::9')),
    { status: 401 },
    'a third address between them starts afresh',
  )
  t.match(await failure(verify(mintToken().token, '203.0.113.7')), { status: 429 })
})

void t.test('every kind of failure counts, malformed included', async (t) => {
  const { verify, mint, store, clock } = verifierFixture()
  const revoked = await mint()
  await store.revoke(revoked.record.id, clock.seconds)
  const expired = await mint({ expiresAt: clock.seconds })
  const tokens = [
    mintToken().token,
    revoked.token,
    expired.token,
    'svc_pat_nope',
    `${mintToken().token.slice(0, -1)}-`,
  ]
  const attempts = Array.from({ length: 20 }, (_, index) =>
    verify(tokens[index % 5] ?? '', '192.0.2.1'),
  )
  t.same(await statuses(attempts), Array<number>(20).fill(401))
  t.equal(((await failure(verify('svc_pat_x', '192.0.2.1'))) as { status: number }).status, 429)
})

void t.test('IPv6 clients are throttled per /64; IPv4-mapped as IPv4', async (t) => {
  const { verify } = verifierFixture()
  const sameNetwork = Array.from({ length: 20 }, (_, index) =>
    verify(mintToken().token, `2001:db8:aa:bb::${(index + 1).toString(16)}`),
  )
  t.same(await statuses(sameNetwork), Array<number>(20).fill(401))
  t.equal(
    ((await failure(verify(mintToken().token, '2001:db8:aa:bb:ffff::1'))) as { status: number })
      .status,
    429,
  )
  t.equal(
    ((await failure(verify(mintToken().token, '2001:db8:aa:bc::1'))) as { status: number }).status,
    401,
  )

  const mapped = Array.from({ length: 20 }, () => verify(mintToken().token, '::ffff:198.51.100.20'))
  t.same(await statuses(mapped), Array<number>(20).fill(401))
  t.equal(
    ((await failure(verify(mintToken().token, '198.51.100.20'))) as { status: number }).status,
    429,
  )
})

void t.test('the throttle forgets the least recent clients beyond its bound', async (t) => {
  const { verify } = verifierFixture({ throttle_max_clients: 10, max_failed_lookups: 2 })
  await statuses([verify('svc_pat_a', '10.0.0.1'), verify('svc_pat_a', '10.0.0.1')])
  t.equal(((await failure(verify('svc_pat_a', '10.0.0.1'))) as { status: number }).status, 429)
  await statuses(Array.from({ length: 10 }, (_, index) => verify('svc_pat_a', `10.0.1.${index}`)))
  t.equal(
    ((await failure(verify('svc_pat_a', '10.0.0.1'))) as { status: number }).status,
    401,
    'evicted, so memory stays bounded',
  )
})

void t.test(
  'throttled_lookups_per_second 0: a valid token is never throttled (AgentOS)',
  async (t) => {
    const { verify, mint } = verifierFixture({ throttled_lookups_per_second: 0 })
    const { token } = await mint()
    for (let index = 0; index < 25; index += 1)
      await failure(verify(mintToken().token, '203.0.113.9'))
    t.match(await verify(token, '203.0.113.9'), { kind: 'service_account' })
  },
)
