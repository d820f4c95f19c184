/**
 * Checklist part I, failing tokens (lines 140–145, 147, 150, 151): one 401 for unknown, expired
 * and revoked tokens, the throttle, no store, a store error and the cache TTL, on both stores.
 */
import t from 'tap'
import { mintToken } from '../../../src/service-accounts/token-format.js'
import { startGateway } from '../../helpers/gateway.js'
import { startRuntime } from '../../helpers/runtime.js'
import { ADMIN, jConfig, oConfig, jwt, sConfig, stack } from '../fixtures.js'
import {
  badToken,
  onStore,
  storeKind,
  forwarded,
  mint,
  nowSeconds,
  pollUntil,
  refused,
  seedAccount,
  subsystem,
} from './harness.js'

const runtime = await startRuntime(t)
const INVALID = 'Invalid or expired service account token'
const THROTTLED = 'Too many failed authentication attempts'
const UNAVAILABLE = 'Authentication is temporarily unavailable'

// Run once, in the embedded store's file.
void t.test(
  'without a store (the same for both store kinds)',
  { skip: storeKind() !== 'embedded' && 'run by the embedded store’s file' },
  async (t) => {
    const off = { service_accounts: { enabled: false } }
    const J0 = await stack(t, runtime, jConfig({}, off))
    const S0 = await stack(t, runtime, sConfig(off))

    void t.test(
      'PAT-6 J and S without service accounts: any svc_pat_ token → 401 "…not enabled…"',
      async (t) => {
        for (const fixture of [J0, S0]) {
          for (const token of [mintToken().token, 'svc_pat_x']) {
            refused(
              t,
              await fixture.call('GET', '/sessions', { token }),
              401,
              'Service accounts are not enabled on this AgentOS instance',
            )
          }
        }
      },
    )

    void t.test(
      'PAT-6 O without a db → no equivalent: Portcullis refuses the configuration (no credential source at all)',
      async (t) => {
        await t.rejects(
          startGateway(t, { upstream: { url: runtime.url }, ...off, auth: { open: true } }),
          /at least one credential source is required/,
        )
      },
    )
  },
)

onStore(t, async (t, store) => {
  const admin = await jwt([ADMIN], { sub: 'human-admin' })
  const J = await stack(t, runtime, jConfig({}, await store.section()))
  const O = await stack(t, runtime, oConfig(await store.section()))

  void t.test(
    'PAT-2 an unknown token → 401 "Invalid or expired service account token"',
    async (t) => {
      for (const token of [mintToken().token, 'svc_pat_doesnotexist']) {
        refused(t, await J.call('GET', '/sessions', { token }), 401, INVALID)
      }
    },
  )

  void t.test('PAT-2 an expired token (expires_at in the past) → 401, the same text', async (t) => {
    const expired = await seedAccount(J.gateway, 'i141', ['sessions:read'], nowSeconds() - 60)
    refused(t, await J.call('GET', '/sessions', { token: expired.token }), 401, INVALID)
  })

  void t.test(
    'PAT-4 25 bad tokens from one client: 20 × 401, then 429 with Retry-After; PAT-4 a valid token from it → 200',
    async (t) => {
      const fixture = await stack(t, runtime, jConfig({}, await store.section()))
      const valid = await mint(fixture, admin, { name: 'i143' })
      const replies = []
      for (let index = 0; index < 25; index += 1) {
        replies.push(await fixture.call('GET', '/sessions', { token: badToken(index) }))
      }
      t.same(
        replies.map((reply) => reply.status),
        [...Array<number>(20).fill(401), ...Array<number>(5).fill(429)],
        'the 21st failure is the first 429',
      )
      const last = replies[24]
      if (last === undefined) throw new Error('no 25th reply')
      refused(t, last, 429, THROTTLED)
      const retryAfter = Number(last.headers['retry-after'])
      t.ok(
        Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60,
        `Retry-After ${retryAfter}`,
      )
      const ok = await fixture.call('GET', '/sessions', { token: valid.token })
      forwarded(t, ok, 200, '/sessions')
      t.equal(ok.upstream?.headers['x-auth-user-id'], 'sa:i143', 'PAT-4 never throttled')
    },
  )

  void t.test(
    'PAT-6 O: stale or unknown tokens and random bearers are ignored → 200 as anonymous',
    async (t) => {
      const stale = await seedAccount(O.gateway, 'i147', ['sessions:read'])
      await subsystem(O.gateway).store.revoke(stale.id, nowSeconds())
      for (const token of [stale.token, mintToken().token, 'svc_pat_x', 'random-bearer']) {
        for (const path of ['/sessions', '/agents']) {
          const reply = await O.call('GET', path, { token })
          forwarded(t, reply, 200, path)
          t.equal(reply.upstream?.headers['x-auth-user-id'], undefined, 'anonymous upstream')
        }
      }
    },
  )

  void t.test(
    'PAT-3 a token revoked in the database behind the gateway: still accepted with TTL 30, refused at once with TTL 0',
    async (t) => {
      const J0 = await stack(t, runtime, jConfig({}, await store.section({ cache_ttl_seconds: 0 })))
      for (const [fixture, expected] of [
        [J, 200],
        [J0, 401],
      ] as const) {
        const account = await mint(fixture, admin, { name: 'i151' })
        const warm = await fixture.call('GET', '/sessions', { token: account.token })
        t.equal(warm.status, 200, 'accepted (and cached where the cache is on)')
        await store.revokeUnannounced(fixture.gateway, account.id)
        const after = await fixture.call('GET', '/sessions', { token: account.token })
        t.equal(
          after.status,
          expected,
          `TTL ${fixture.gateway.config.service_accounts.cache_ttl_seconds}`,
        )
      }
    },
  )

  void t.test(
    'PAT-5 a store error during lookup → 503 "Authentication is temporarily unavailable", never counted',
    async (t) => {
      const fixture = await stack(t, runtime, jConfig({}, await store.section()))
      const account = await mint(fixture, admin, { name: 'i150' })
      const restore = await store.breakStore(fixture.gateway)
      try {
        const statuses: number[] = []
        let slowest = 0
        for (let attempt = 0; attempt < 25; attempt += 1) {
          const started = performance.now()
          const reply = await fixture.call('GET', '/sessions', { token: account.token })
          slowest = Math.max(slowest, performance.now() - started)
          statuses.push(reply.status)
          if (attempt === 24) refused(t, reply, 503, UNAVAILABLE)
        }
        t.same(statuses, Array<number>(25).fill(503), '25 × 503, no 429')
        t.ok(slowest < 5_000, `each answered in time (slowest ${Math.round(slowest)} ms)`)
        const bad = await fixture.call('GET', '/sessions', { token: 'svc_pat_bad' })
        refused(t, bad, 401, INVALID)
      } finally {
        await restore?.()
      }
      if (restore === null) return // the embedded store cannot be reopened under a running gateway
      await pollUntil(
        async () =>
          (await fixture.call('GET', '/sessions', { token: account.token })).status === 200,
        'the token to verify again after the database came back',
      )
      t.pass('recovered without a restart')
    },
  )
})
