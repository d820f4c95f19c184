/**
 * The database going away under two running replicas: token verification and /service-accounts
 * answer 503 within the configured timeouts (never a hang), outages are not counted as failed
 * lookups, /readyz names the store; when the database returns everything recovers without a
 * restart, revocation notifications included.
 */
import t from 'tap'
import { ADMIN, jConfig, jwt, stack, type Reply, type Stack } from '../../conformance/fixtures.js'
import { mint } from '../../conformance/service-accounts/harness.js'
import { postgresSkipReason, startPostgres } from '../../helpers/postgres.js'
import { startRuntime } from '../../helpers/runtime.js'
import { counter, pollUntil, replicaSection } from './cluster.js'

const UNAVAILABLE = 'Authentication is temporarily unavailable'
const API_UNAVAILABLE = 'Service accounts are temporarily unavailable'
/** connect_timeout_ms + query_timeout_ms of the replicas, plus scheduling slack. */
const BOUND_MS = 2_000 + 1_500
const RESUMED = /revocation notifications resumed after an interruption/
const admin = await jwt([ADMIN], { sub: 'ops' })

async function timed(work: Promise<Reply>): Promise<Reply & { ms: number }> {
  const started = performance.now()
  const reply = await work
  return { ...reply, ms: performance.now() - started }
}

async function readiness(
  fixture: Stack,
): Promise<{ status: number; checks: Record<string, string> }> {
  const response = await fetch(`${fixture.gateway.adminUrl}/readyz`)
  const body = (await response.json()) as { checks: Record<string, string> }
  return { status: response.status, checks: body.checks }
}

/** How often a replica logged that its revocation listener came back. */
const resumed = (fixture: Stack): number =>
  fixture.gateway.logs.lines.filter((line) => RESUMED.test(line)).length

void t.test('database outage under two replicas', { skip: postgresSkipReason() }, async (t) => {
  const runtime = await startRuntime(t)
  const server = await startPostgres(t)
  const url = await server.createDatabase()
  const A = await stack(t, runtime, jConfig({}, replicaSection(url)))
  const B = await stack(t, runtime, jConfig({}, replicaSection(url)))
  const sessions = (fixture: Stack, token: string) =>
    timed(fixture.call('GET', '/sessions', { token }))
  const list = (fixture: Stack) => timed(fixture.call('GET', '/service-accounts', { token: admin }))
  const cached = await mint(A, admin, { name: 'cached' })
  const fresh = await mint(A, admin, { name: 'fresh' })
  t.equal((await sessions(A, cached.token)).status, 200, 'cached on A before the outage')

  void t.test('a hung database (SIGSTOP): 503 within the timeouts, not a hang', async (t) => {
    server.pause()
    try {
      const verify = await sessions(A, fresh.token)
      t.equal(verify.status, 503)
      t.equal(verify.detail, UNAVAILABLE)
      t.ok(verify.ms < BOUND_MS, `verification answered in ${Math.round(verify.ms)} ms`)
      const api = await list(A)
      t.equal(api.status, 503)
      t.equal(api.detail, API_UNAVAILABLE)
      t.ok(api.ms < BOUND_MS, `GET /service-accounts answered in ${Math.round(api.ms)} ms`)
      const ready = await readiness(A)
      t.equal(ready.status, 503)
      t.not(ready.checks.store, 'ok', `/readyz: store ${ready.checks.store}`)
    } finally {
      server.resume()
    }
    await pollUntil(async () => (await list(A)).status === 200, 'A to serve the API again')
  })

  void t.test(
    'a stopped database: 503 for verification and the API, never counted, /readyz names the store',
    async (t) => {
      const resumedBefore = resumed(A)
      await server.stop()
      const statuses: number[] = []
      let slowest = 0
      for (let attempt = 0; attempt < 25; attempt += 1) {
        const reply = await sessions(A, fresh.token)
        statuses.push(reply.status)
        slowest = Math.max(slowest, reply.ms)
        if (attempt === 0) t.equal(reply.detail, UNAVAILABLE)
      }
      t.same(statuses, Array<number>(25).fill(503), '25 lookups, 25 × 503, no 429')
      t.equal(
        (await sessions(A, fresh.token)).headers['retry-after'],
        '5',
        'a 503 caused by the store says when to retry',
      )
      t.ok(slowest < BOUND_MS, `each within the bound (slowest ${Math.round(slowest)} ms)`)
      const bad = await sessions(A, 'svc_pat_bad')
      t.equal(bad.status, 401, 'the outage left the throttle empty: a bad token is a plain 401')
      t.equal((await sessions(A, cached.token)).status, 200, 'a cached token needs no database')

      const mintReply = await timed(
        A.call('POST', '/service-accounts', { token: admin, json: { name: 'during' } }),
      )
      const revokeReply = await timed(
        A.call('DELETE', `/service-accounts/${cached.id}`, { token: admin }),
      )
      for (const [label, reply] of [
        ['GET', await list(A)],
        ['POST', mintReply],
        ['DELETE', revokeReply],
      ] as const) {
        t.equal(reply.status, 503, `${label} /service-accounts → 503`)
        t.equal(reply.detail, API_UNAVAILABLE)
        t.equal(reply.headers['retry-after'], '5', `${label}: Retry-After`)
        t.ok(reply.ms < BOUND_MS, `in ${Math.round(reply.ms)} ms`)
      }
      const ready = await readiness(A)
      t.equal(ready.status, 503, '/readyz 503')
      t.not(ready.checks.store, undefined, 'names the store')
      t.not(ready.checks.store, 'ok', `store: ${ready.checks.store}`)
      t.equal(ready.checks.upstream, 'ok', 'and only the store')
      const outcomes = 'portcullis_service_account_verifications_total'
      t.ok((await counter(A.gateway, outcomes, { reason: 'service_account.unavailable' })) >= 25)
      t.equal(await counter(A.gateway, outcomes, { reason: 'service_account.throttled' }), 0)
      t.equal(resumed(A), resumedBefore, 'the listener has not come back yet')
    },
  )

  void t.test(
    'recovery after the database restarts, without restarting the gateways',
    async (t) => {
      const counts = [A, B].map(resumed)
      await server.start()
      await pollUntil(
        async () => (await sessions(A, fresh.token)).status === 200,
        'the fresh token to verify on A',
        20_000,
      )
      t.pass('verification recovered')
      await pollUntil(async () => (await readiness(A)).status === 200, '/readyz 200', 20_000)
      t.equal((await list(A)).status, 200, 'the API recovered')
      // Both listeners reconnected (with backoff) and reported the gap.
      for (const [index, fixture] of [A, B].entries()) {
        await pollUntil(
          async () => resumed(fixture) > (counts[index] ?? 0),
          `replica ${index === 0 ? 'A' : 'B'} to listen again`,
          20_000,
        )
      }
      t.pass('both listeners reconnected and reported the gap')
      const account = await mint(A, admin, { name: 'after' })
      t.equal((await sessions(B, account.token)).status, 200, 'cached on B after the reconnect')
      const notifications = await counter(
        B.gateway,
        'portcullis_service_account_revocation_notifications_total',
      )
      const started = performance.now()
      t.equal(
        (await A.call('DELETE', `/service-accounts/${account.id}`, { token: admin })).status,
        204,
      )
      await pollUntil(
        async () => (await sessions(B, account.token)).status === 401,
        'B to refuse the revoked token',
        5_000,
        0,
      )
      const delay = performance.now() - started
      t.ok(delay < 1_000, `B refused it ${Math.round(delay)} ms after the DELETE on A`)
      t.ok(
        (await counter(B.gateway, 'portcullis_service_account_revocation_notifications_total')) >
          notifications,
        'by notification',
      )
    },
  )
})
