/**
 * Checklist part I, using tokens (lines 134–139, 146, 148, 149): scopes enforced in every mode,
 * identity pinned to `sa:<name>` at the upstream, on both stores.
 */
import t from 'tap'
import { startRuntime } from '../../helpers/runtime.js'
import { ADMIN, ids, ip, jConfig, oConfig, jwt, sConfig, stack, type Stack } from '../fixtures.js'
import {
  DEFAULT_SCOPES,
  onStore,
  forwarded,
  grants,
  mint,
  refused,
  seedAccount,
} from './harness.js'

const runtime = await startRuntime(t)

interface Fixture {
  readonly label: string
  readonly stack: Stack
  /** A default-scope token (PATd) and its account name. */
  readonly patd: { readonly name: string; readonly token: string }
}

onStore(t, async (t, store) => {
  const admin = await jwt([ADMIN], { sub: 'human-admin' })
  const J = await stack(t, runtime, jConfig({}, await store.section()))
  const S = await stack(t, runtime, sConfig(await store.section()))
  const O = await stack(t, runtime, oConfig(await store.section()))
  // O has no credential that may mint, so its token is written into its store.
  const fixtures: Fixture[] = [
    {
      label: 'J',
      stack: J,
      patd: { name: 'patd-j', ...(await mint(J, admin, { name: 'patd-j' })) },
    },
    {
      label: 'S',
      stack: S,
      patd: {
        name: 'patd-s',
        ...(await mint(S, 'root-key-5f0c8e2a9b7d4c1e6a3f8b0d', { name: 'patd-s' })),
      },
    },
    { label: 'O', stack: O, patd: await seedAccount(O.gateway, 'patd-o', DEFAULT_SCOPES) },
  ]

  void t.test(
    'AUTH-8 J, S, O: PATd runs agent a1 → 200, the run attributed to sa:<name> at the upstream',
    async (t) => {
      for (const { label, stack: fixture, patd } of fixtures) {
        const reply = await fixture.call('POST', '/agents/a1/runs', {
          token: patd.token,
          form: { message: 'hello', stream: 'false', user_id: 'mallory' },
        })
        forwarded(t, reply, 200, '/agents/a1/runs')
        t.same(reply.upstream?.form?.user_id, [`sa:${patd.name}`], `${label}: user_id pinned`)
        t.match(reply.body, { user_id: `sa:${patd.name}` }, `${label}: the run's owner`)
        t.equal(reply.upstream?.headers['x-auth-user-id'], `sa:${patd.name}`)
        t.equal(reply.upstream?.headers.authorization, undefined, 'the token is not forwarded')
      }
    },
  )

  void t.test(
    'AUTH-8 J, S, O: PATd GET /sessions → 200; DELETE /sessions → 403ip(sessions:delete)',
    async (t) => {
      for (const { label, stack: fixture, patd } of fixtures) {
        const sessions = await fixture.call('GET', '/sessions', { token: patd.token })
        forwarded(t, sessions, 200, '/sessions')
        t.same(sessions.upstream?.query.user_id, [`sa:${patd.name}`], `${label}: self-scoped`)
        const remove = await fixture.call('DELETE', '/sessions', {
          token: patd.token,
          json: { session_ids: ['x'], session_types: ['agent'] },
        })
        refused(t, remove, 403, ip('sessions:delete'))
      }
    },
  )

  void t.test(
    'AUTH-8 PATd: GET /agents and /agents/a1 → 403ip(agents:read); GET /config → 200',
    async (t) => {
      for (const { stack: fixture, patd } of fixtures) {
        const auth = { token: patd.token }
        refused(t, await fixture.call('GET', '/agents', auth), 403, ip('agents:read'))
        refused(t, await fixture.call('GET', '/agents/a1', auth), 403, ip('agents:read'))
        forwarded(t, await fixture.call('GET', '/config', auth), 200, '/config')
      }
    },
  )

  void t.test(
    'AUTH-8 PAT(agents:a1:read, agents:a1:run): GET /agents → [a1]; a2 → 403; run a2 → 403ip(agents:run)',
    async (t) => {
      const narrow = await mint(J, admin, {
        name: 'i137',
        scopes: grants('agents:a1:read', 'agents:a1:run'),
      })
      const agents = await J.call('GET', '/agents', { token: narrow.token })
      forwarded(t, agents, 200, '/agents')
      t.same(ids(agents.body), ['a1'])
      refused(t, await J.call('GET', '/agents/a2', { token: narrow.token }), 403, ip('agents:read'))
      const run = await J.call('POST', '/agents/a2/runs', {
        token: narrow.token,
        form: { message: 'hi' },
      })
      refused(t, run, 403, ip('agents:run'))
    },
  )

  void t.test(
    'ISO-1 PATd cancels without session_id → 400 (service accounts are always self-scoped)',
    async (t) => {
      for (const { stack: fixture, patd } of fixtures) {
        const reply = await fixture.call('POST', '/agents/a1/runs/r/cancel', { token: patd.token })
        refused(t, reply, 400, 'session_id is required for this action')
      }
    },
  )

  void t.test(
    'AUTH-8 PAT([]): GET /metrics/refresh/status → 200; GET /sessions → 403ip(sessions:read)',
    async (t) => {
      const empty = await mint(J, admin, { name: 'i139', scopes: [] })
      const status = await J.call('GET', '/metrics/refresh/status', { token: empty.token })
      forwarded(t, status, 200, '/metrics/refresh/status')
      t.equal(status.upstream?.headers['x-auth-user-id'], 'sa:i139')
      refused(t, await J.call('GET', '/sessions', { token: empty.token }), 403, ip('sessions:read'))
    },
  )

  void t.test(
    'AUTH-8 JWT RBAC off: PATd DELETE /sessions → 403 and GET /agents → 403 (token scopes always enforced)',
    async (t) => {
      const off = await stack(t, runtime, jConfig({ authorization: false }, await store.section()))
      const patd = await mint(off, await jwt([ADMIN]), { name: 'i146' })
      const remove = await off.call('DELETE', '/sessions', { token: patd.token })
      refused(t, remove, 403, ip('sessions:delete'))
      refused(t, await off.call('GET', '/agents', { token: patd.token }), 403, ip('agents:read'))
      const jwtCaller = await off.call('GET', '/agents', { token: await jwt([]) })
      forwarded(t, jwtCaller, 200, '/agents')
    },
  )

  void t.test(
    'AUTH-8 O: a verified PATd DELETE /sessions → 403; GET /service-accounts → 403ip(service_accounts:read)',
    async (t) => {
      const patd = fixtures[2]?.patd
      if (patd === undefined) throw new Error('no O fixture')
      refused(
        t,
        await O.call('DELETE', '/sessions', { token: patd.token }),
        403,
        ip('sessions:delete'),
      )
      const list = await O.call('GET', '/service-accounts', { token: patd.token })
      refused(t, list, 403, ip('service_accounts:read'))
      forwarded(t, await O.call('DELETE', '/sessions', { json: { session_ids: [] } }), 204)
    },
  )

  void t.test(
    'AUTH-2 J and S: "Authorization: svc_pat_…" without "Bearer " → accepted',
    async (t) => {
      for (const { label, stack: fixture, patd } of fixtures.slice(0, 2)) {
        const reply = await fixture.call('GET', '/sessions', {
          headers: { authorization: patd.token },
        })
        forwarded(t, reply, 200, '/sessions')
        t.equal(reply.upstream?.headers['x-auth-user-id'], `sa:${patd.name}`, label)
      }
    },
  )
})
