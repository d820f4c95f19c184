import t from 'tap'
import { RefusedTokens } from '../../../src/service-accounts/refused-tokens.js'
import { mintToken } from '../../../src/service-accounts/token-format.js'
import { failure, verifierFixture } from './verifier-fixture.js'

const UNKNOWN = { reason: 'unknown', account: undefined } as const

function refusedTokens(ttlSeconds: number, maxEntries: number) {
  const clock = { now: 0 }
  const refused = new RefusedTokens({
    ttlSeconds,
    maxEntries,
    clock: { monotonic: () => clock.now },
  })
  return { refused, clock }
}

void t.test('a refusal is remembered for the TTL, then forgotten', async (t) => {
  const { refused, clock } = refusedTokens(10, 10)
  clock.now = 1_000
  refused.remember('h1', UNKNOWN)
  clock.now = 11_000
  t.same(refused.get('h1'), UNKNOWN, 'age == TTL is still remembered')
  clock.now = 11_001
  t.equal(refused.get('h1'), undefined)
})

void t.test('bounded: the least recently used refusal goes first; TTL 0 keeps none', async (t) => {
  const { refused } = refusedTokens(10, 2)
  refused.remember('a', UNKNOWN)
  refused.remember('b', UNKNOWN)
  refused.remember('c', UNKNOWN)
  t.equal(refused.size, 2)
  t.equal(refused.get('a'), undefined)
  t.ok(refused.get('c'))
  const off = refusedTokens(0, 10).refused
  off.remember('a', UNKNOWN)
  t.equal(off.size, 0)
  t.equal(off.get('a'), undefined)
})

void t.test('a repeated unknown token asks the store once and still counts', async (t) => {
  const { verify, store, clock } = verifierFixture({
    cache_ttl_seconds: 300,
    max_failed_lookups: 3,
  })
  const unknown = mintToken().token
  for (let attempt = 1; attempt <= 3; attempt++) {
    t.match(await failure(verify(unknown)), { status: 401, reason: 'service_account.unknown' })
  }
  t.equal(store.calls.findByTokenHash, 1, 'one lookup for three attempts')
  t.match(await failure(verify(unknown)), { status: 429 }, 'the throttle still counts them')
  clock.monotonicMs += 60_001
  clock.wallMs += 60_001
  await failure(verify(unknown))
  t.equal(store.calls.findByTokenHash, 2, 'after 60 s (the bound below the TTL) it is asked again')
})

void t.test('a revoked token is refused as revoked without a second lookup', async (t) => {
  const { verify, mint, store, clock } = verifierFixture({ cache_ttl_seconds: 300 })
  const { token, record } = await mint()
  await store.revoke(record.id, clock.seconds)
  t.match(await failure(verify(token)), { reason: 'service_account.revoked' })
  t.match(await failure(verify(token)), { reason: 'service_account.revoked' })
  t.equal(store.calls.findByTokenHash, 1)
})

void t.test('cache TTL 0: every refusal asks the store again', async (t) => {
  const { verify, store } = verifierFixture({ cache_ttl_seconds: 0 })
  const unknown = mintToken().token
  await failure(verify(unknown))
  await failure(verify(unknown))
  t.equal(store.calls.findByTokenHash, 2)
})

void t.test('a valid token is never answered from the refusals', async (t) => {
  const { verify, mint } = verifierFixture({ cache_ttl_seconds: 300 })
  const { token } = await mint()
  t.match(await verify(token), { kind: 'service_account' })
  t.match(await verify(token), { kind: 'service_account' })
})

void t.test('a limited client: a few lookups per second, then 429 without one', async (t) => {
  const { verify, mint, store, clock } = verifierFixture({
    max_failed_lookups: 3,
    throttled_lookups_per_second: 2,
  })
  for (let n = 0; n < 3; n++) await failure(verify(mintToken().token))
  const before = store.calls.findByTokenHash
  const answers: unknown[] = []
  for (let n = 0; n < 6; n++) {
    answers.push(((await failure(verify(mintToken().token))) as { status?: number }).status)
  }
  t.same(answers, [429, 429, 429, 429, 429, 429], 'a limited client gets 429 either way')
  t.equal(store.calls.findByTokenHash - before, 2, 'but only two lookups this second')
  const { token } = await mint()
  t.match(await failure(verify(token)), { status: 429 }, 'past the budget even a valid token waits')
  clock.monotonicMs += 1_000
  t.match(await verify(token), { kind: 'service_account' }, 'and passes within the next second')
})
