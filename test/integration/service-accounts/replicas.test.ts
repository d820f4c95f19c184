/**
 * Several gateways on one PostgreSQL database: a revocation on one replica reaches the others'
 * caches by NOTIFY in well under a second; without a notification the cache TTL is the bound
 * (0: at once); expiry is re-checked on every cache hit; concurrent mints of one name give one 201.
 */
import t from 'tap'
import { mint, sql, subsystem } from '../../conformance/service-accounts/harness.js'
import { ADMIN, jConfig, jwt, stack, type Stack } from '../../conformance/fixtures.js'
import { postgresSkipReason, startPostgres } from '../../helpers/postgres.js'
import { startRuntime } from '../../helpers/runtime.js'
import { counter, pollUntil, replicaSection, storeCalls } from './cluster.js'

const REFUSED = 'Invalid or expired service account token'
const admin = await jwt([ADMIN], { sub: 'ops' })

void t.test('replicas on one PostgreSQL database', { skip: postgresSkipReason() }, async (t) => {
  const runtime = await startRuntime(t)
  const server = await startPostgres(t)
  const replica = async (url: string, serviceAccounts = {}) =>
    stack(t, runtime, jConfig({}, replicaSection(url, serviceAccounts)))
  const sessions = (fixture: Stack, token: string) => fixture.call('GET', '/sessions', { token })

  const shared = await server.createDatabase()
  const A = await replica(shared)
  const B = await replica(shared)

  void t.test('a revocation on A stops the token cached on B in under one second', async (t) => {
    const delays: number[] = []
    for (let round = 1; round <= 5; round += 1) {
      const account = await mint(A, admin, { name: `cross-${round}` })
      t.equal((await sessions(B, account.token)).status, 200, 'B verified it')
      const hits = await counter(B.gateway, 'portcullis_service_account_cache_hits_total')
      t.equal((await sessions(B, account.token)).status, 200, 'and answers from its cache')
      t.equal(await counter(B.gateway, 'portcullis_service_account_cache_hits_total'), hits + 1)
      const notifications = await counter(
        B.gateway,
        'portcullis_service_account_revocation_notifications_total',
      )

      const started = performance.now()
      t.equal(
        (await A.call('DELETE', `/service-accounts/${account.id}`, { token: admin })).status,
        204,
      )
      let delay = Number.POSITIVE_INFINITY
      await pollUntil(
        async () => {
          const reply = await sessions(B, account.token)
          if (reply.status === 200) return false
          delay = performance.now() - started
          t.equal(reply.status, 401)
          t.equal(reply.detail, REFUSED)
          return true
        },
        'B to refuse the revoked token',
        5_000,
        0,
      )
      delays.push(delay)
      t.ok(
        delay < 1_000,
        `round ${round}: refused on B ${Math.round(delay)} ms after the DELETE on A`,
      )
      t.ok(
        (await counter(B.gateway, 'portcullis_service_account_revocation_notifications_total')) >
          notifications,
        'by notification, not by the TTL',
      )
    }
    const sorted = [...delays].sort((a, b) => a - b)
    t.comment(
      `cross-replica revocation delays (ms): ${delays.map((ms) => ms.toFixed(1)).join(', ')}; max ${sorted[sorted.length - 1]?.toFixed(1)}`,
    )
  })

  void t.test(
    'a revocation written to the database without NOTIFY: TTL 0 refuses at once, a short TTL after it, TTL 30 keeps trusting',
    async (t) => {
      const url = await server.createDatabase()
      const ttl30 = await replica(url)
      const ttl0 = await replica(url, { cache_ttl_seconds: 0 })
      const ttl3 = await replica(url, { cache_ttl_seconds: 3 })
      const account = await mint(ttl30, admin, { name: 'quiet' })
      for (const fixture of [ttl30, ttl0])
        t.equal((await sessions(fixture, account.token)).status, 200)
      const warmed = performance.now()
      t.equal((await sessions(ttl3, account.token)).status, 200)
      const notifications = await counter(
        ttl30.gateway,
        'portcullis_service_account_revocation_notifications_total',
      )

      await sql(
        ttl30.gateway,
        'UPDATE portcullis_service_accounts SET revoked_at = $2 WHERE id = $1',
        [account.id, Math.floor(Date.now() / 1000)],
      )
      t.equal((await sessions(ttl0, account.token)).detail, REFUSED, 'TTL 0: refused at once')
      t.equal((await sessions(ttl30, account.token)).status, 200, 'TTL 30: still trusted')
      let flipped = 0
      await pollUntil(
        async () => {
          const status = (await sessions(ttl3, account.token)).status
          flipped = performance.now()
          return status === 401
        },
        'the TTL 3 replica to look the token up again',
        10_000,
        25,
      )
      const age = flipped - warmed
      t.ok(
        age >= 3_000,
        `TTL 3: trusted until its entry was 3 s old (refused at ${Math.round(age)} ms)`,
      )
      t.ok(age < 8_000, 'and refused soon after')
      t.equal((await sessions(ttl30, account.token)).status, 200, 'TTL 30: still trusted after 3 s')
      t.equal(
        await counter(ttl30.gateway, 'portcullis_service_account_revocation_notifications_total'),
        notifications,
        'no notification was sent',
      )
    },
  )

  void t.test('an account that expires while cached is refused from the cache', async (t) => {
    const account = await mint(A, admin, { name: 'short-lived' })
    const expiresAt = Math.floor(Date.now() / 1000) + 2
    await sql(A.gateway, 'UPDATE portcullis_service_accounts SET expires_at = $2 WHERE id = $1', [
      account.id,
      expiresAt,
    ])
    t.equal((await sessions(A, account.token)).status, 200, 'verified and cached')
    const lookups = await storeCalls(A.gateway, 'find_by_token_hash')
    const expired = { reason: 'expired' }
    const evictions = await counter(
      A.gateway,
      'portcullis_service_account_cache_evictions_total',
      expired,
    )
    let refusedAt = 0
    await pollUntil(
      async () => {
        const reply = await sessions(A, account.token)
        refusedAt = Date.now()
        return reply.status === 401 && reply.detail === REFUSED
      },
      'the cached account to expire',
      10_000,
      25,
    )
    t.ok(refusedAt >= expiresAt * 1_000, 'refused once expires_at has passed, not before')
    t.equal(await storeCalls(A.gateway, 'find_by_token_hash'), lookups, 'without a lookup')
    t.equal(
      await counter(A.gateway, 'portcullis_service_account_cache_evictions_total', expired),
      evictions + 1,
      'the cache entry was dropped as expired',
    )
  })

  void t.test('10 concurrent mints of one name on two replicas → one 201, nine 409', async (t) => {
    const replies = await Promise.all(
      Array.from({ length: 10 }, (_, index) =>
        (index % 2 === 0 ? A : B).call('POST', '/service-accounts', {
          token: admin,
          json: { name: 'race', scopes: [{ scope: 'agents:run' }] },
        }),
      ),
    )
    const statuses = replies.map((reply) => reply.status).sort()
    t.same(statuses, [201, ...Array<number>(9).fill(409)])
    for (const reply of replies.filter((each) => each.status === 409)) {
      t.equal(
        reply.detail,
        "An active service account named 'race' already exists. Revoke it first to rotate.",
      )
    }
    const rows = await sql(
      A.gateway,
      'SELECT id FROM portcullis_service_accounts WHERE name = $1',
      ['race'],
    )
    t.equal(rows.length, 1, 'one row in the database')
  })

  void t.test('last_used_at: at most one write per interval, account and replica', async (t) => {
    const url = await server.createDatabase()
    const P = await replica(url)
    const Q = await replica(url)
    const fast = await replica(url, { last_used_interval_seconds: 2 })
    const busy = await mint(P, admin, { name: 'busy' })
    const other = await mint(P, admin, { name: 'other' })
    const lastUsed = async (id: string) =>
      (
        await sql(P.gateway, 'SELECT last_used_at FROM portcullis_service_accounts WHERE id = $1', [
          id,
        ])
      )[0]?.last_used_at as string | null
    const writes = async (fixture: Stack) => {
      await subsystem(fixture.gateway).verifier.settled()
      return storeCalls(fixture.gateway, 'touch_last_used')
    }
    t.equal(await lastUsed(busy.id), null, 'null before any use')
    const before = Math.floor(Date.now() / 1000)
    for (let round = 0; round < 5; round += 1) {
      t.equal((await sessions(P, busy.token)).status, 200)
      t.equal((await sessions(Q, busy.token)).status, 200)
      if (round < 3) t.equal((await sessions(P, other.token)).status, 200)
    }
    t.equal(await writes(P), 2, 'P: 8 uses of 2 accounts, 2 writes')
    t.equal(await writes(Q), 1, 'Q: 5 uses, 1 write')
    const at = Number(await lastUsed(busy.id))
    t.ok(at >= before && at <= Math.floor(Date.now() / 1000), 'last_used_at ≈ now')
    t.not(await lastUsed(other.id), null)

    const first = performance.now()
    t.equal((await sessions(fast, busy.token)).status, 200)
    t.equal((await sessions(fast, busy.token)).status, 200)
    t.equal(await writes(fast), 1, 'two uses within the interval, one write')
    await pollUntil(
      async () => (await sessions(fast, busy.token)).status === 200 && (await writes(fast)) === 2,
      'the next write once the interval has passed',
      10_000,
      100,
    )
    t.ok(performance.now() - first >= 2_000, 'not before the interval')
  })
})
