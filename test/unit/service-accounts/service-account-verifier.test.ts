import t from 'tap'
import { NOT_RESPONSIBLE } from '../../../src/auth/verifier.js'
import { createLogger } from '../../../src/logger.js'
import { RevocationHub } from '../../../src/service-accounts/revocation-hub.js'
import { credentialDigest } from '../../../src/auth/credential.js'
import {
  digestOfStoredHash,
  hashToken,
  mintToken,
} from '../../../src/service-accounts/token-format.js'
import { failure, verifierFixture } from './verifier-fixture.js'

const INVALID = {
  code: 'TOKEN_INVALID',
  status: 401,
  detail: 'Invalid or expired service account token',
}

void t.test('only svc_pat_ tokens are its business', async (t) => {
  const { verify, store } = verifierFixture()
  t.equal(await verify('eyJhbGciOiJIUzI1NiJ9.e30.sig'), NOT_RESPONSIBLE)
  t.equal(await verify('some-security-key'), NOT_RESPONSIBLE)
  t.equal(await verify(`SVC_PAT_${mintToken().token.slice(8)}`), NOT_RESPONSIBLE, 'case-sensitive')
  t.equal(store.calls.findByTokenHash, 0)
})

void t.test('a valid token gives the service-account principal', async (t) => {
  const { verify, mint } = verifierFixture()
  const { token, record } = await mint({ name: 'ci-bot', scopes: ['agents:run', 'agents:run'] })
  const principal = await verify(token)
  // `has`: the principal is also its own `serviceAccount` view, so it has `id` and `name` too.
  t.has(principal, {
    kind: 'service_account',
    authenticated: true,
    userId: 'sa:ci-bot',
    sessionId: null,
    scopes: ['agents:run', 'agents:run'],
    authorizationEnabled: true,
    serviceAccount: { id: record.id, name: 'ci-bot' },
    expiresAt: record.expiresAt,
    credentialHash: credentialDigest(token),
  })
  t.ok(Object.isFrozen(principal), 'a cached principal is shared between requests')
})

void t.test('unknown, revoked, expired and malformed tokens share one 401', async (t) => {
  const { verify, mint, store, clock } = verifierFixture()
  const revoked = await mint()
  await store.revoke(revoked.record.id, clock.seconds)
  const expired = await mint({ expiresAt: clock.seconds })
  const { token: good } = await mint()
  const cases = {
    unknown: mintToken().token,
    revoked: revoked.token,
    expired: expired.token,
    malformed: `${good.slice(0, -1)}${good.endsWith('0') ? '1' : '0'}`,
  }
  for (const [reason, token] of Object.entries(cases)) {
    t.match(
      await failure(verify(token)),
      { ...INVALID, reason: `service_account.${reason}` },
      reason,
    )
  }
  t.equal(store.calls.findByTokenHash, 3, 'a malformed token costs no lookup')
})

void t.test(
  'cache TTL 30: one lookup, fresh while age <= TTL by the monotonic clock',
  async (t) => {
    const { verify, mint, store, clock } = verifierFixture({ cache_ttl_seconds: 30 })
    const { token } = await mint({ expiresAt: null })
    await verify(token)
    await verify(token)
    t.equal(store.calls.findByTokenHash, 1)
    clock.wallMs += 3_600_000
    await verify(token)
    t.equal(store.calls.findByTokenHash, 1, 'the wall clock does not age entries')
    clock.monotonicMs += 30_000
    await verify(token)
    t.equal(store.calls.findByTokenHash, 1, 'age == TTL is still fresh')
    clock.monotonicMs += 1
    await verify(token)
    t.equal(store.calls.findByTokenHash, 2, 'age > TTL asks the store again')
  },
)

void t.test('cache TTL 0: every verification asks the store', async (t) => {
  const { verify, mint, store } = verifierFixture({ cache_ttl_seconds: 0 })
  const { token } = await mint()
  for (let index = 0; index < 3; index += 1) await verify(token)
  t.equal(store.calls.findByTokenHash, 3)
})

void t.test('expiry is re-checked on every cache hit, by the wall clock', async (t) => {
  const { verify, mint, store, clock } = verifierFixture({ cache_ttl_seconds: 30 })
  const { token } = await mint({ expiresAt: clock.seconds + 10 })
  await verify(token)
  clock.wallMs += 9_999
  t.ok(await verify(token), 'still valid a millisecond before')
  clock.wallMs += 1
  t.match(await failure(verify(token)), { ...INVALID, reason: 'service_account.expired' })
  t.equal(store.calls.findByTokenHash, 1, 'decided from the cache entry')
})

void t.test('revocations evict: local, announced by other replicas, and after a gap', async (t) => {
  const { verify, mint, store, clock, verifier, logs } = verifierFixture({ cache_ttl_seconds: 30 })
  const revocations = new RevocationHub({
    store,
    logger: createLogger({ level: 'info', destination: logs }),
  })
  revocations.subscribe(verifier)
  await revocations.start()
  const local = await mint()
  await verify(local.token)
  revocations.revoked(hashToken(local.token))
  await verify(local.token)
  t.equal(store.calls.findByTokenHash, 2, 'a local revocation forgets the entry')

  const remote = await mint()
  await verify(remote.token)
  await store.revoke(remote.record.id, clock.seconds)
  t.match(await failure(verify(remote.token)), { reason: 'service_account.revoked' })

  const other = await mint()
  await verify(other.token)
  const before = store.calls.findByTokenHash
  store.signalGap()
  await verify(other.token)
  t.equal(store.calls.findByTokenHash, before + 1, 'a notification gap drops the cache')
  revocations.stop()
  await verifier.settled()
})

void t.test('a lookup that straddles a revocation is not cached', async (t) => {
  const { verify, mint, store, verifier } = verifierFixture({ cache_ttl_seconds: 30 })
  const { token } = await mint()
  const find = store.findByTokenHash.bind(store)
  store.findByTokenHash = async (hash) => {
    const found = await find(hash)
    verifier.revoked(digestOfStoredHash(hash))
    return found
  }
  await verify(token)
  await verify(token)
  t.equal(store.calls.findByTokenHash, 2)
})

void t.test('store down: 503, never counted as a failure', async (t) => {
  const { verify, mint, store, logs } = verifierFixture()
  const { token } = await mint()
  store.available = false
  for (let index = 0; index < 25; index += 1) {
    const error = await failure(verify(mintToken().token))
    if (index === 0) {
      t.match(error, {
        code: 'AUTH_UNAVAILABLE',
        status: 503,
        detail: 'Authentication is temporarily unavailable',
        reason: 'service_account.unavailable',
      })
    }
  }
  store.available = true
  t.match(await failure(verify(mintToken().token)), INVALID, 'still 401, not 429')
  t.ok(await verify(token))
  t.match(logs.text, /service-account store unavailable/)
})

void t.test('last_used_at is written at most once per interval per account', async (t) => {
  const { verify, mint, store, clock, verifier } = verifierFixture({
    last_used_interval_seconds: 60,
  })
  const { token, record } = await mint()
  for (let index = 0; index < 5; index += 1) await verify(token)
  await verifier.settled()
  t.equal(store.calls.touchLastUsed, 1)
  t.equal((await store.findById(record.id))?.lastUsedAt, clock.seconds)
  clock.advance(59_999)
  await verify(token)
  t.equal(store.calls.touchLastUsed, 1)
  clock.advance(1)
  await verify(token)
  await verifier.settled()
  t.equal(store.calls.touchLastUsed, 2)
  t.equal((await store.findById(record.id))?.lastUsedAt, clock.seconds)
})

void t.test('a failed last_used_at write is logged and the request still succeeds', async (t) => {
  const { verify, mint, store, logs, verifier } = verifierFixture()
  const { token } = await mint()
  store.touchLastUsed = async () => {
    throw new Error('disk full')
  }
  t.match(await verify(token), { kind: 'service_account' })
  await verifier.settled()
  t.match(logs.text, /could not record last_used_at/)
})

void t.test('metrics count outcomes and cache traffic', async (t) => {
  const { verify, mint, registry } = verifierFixture()
  const { token } = await mint()
  await verify(token)
  await verify(token)
  await failure(verify(mintToken().token))
  const text = await registry.metrics()
  t.match(text, /portcullis_service_account_verifications_total\{reason="ok"\} 2/)
  t.match(
    text,
    /portcullis_service_account_verifications_total\{reason="service_account.unknown"\} 1/,
  )
  t.match(text, /portcullis_service_account_cache_hits_total 1/)
  t.match(text, /portcullis_service_account_cache_misses_total 2/)
})
