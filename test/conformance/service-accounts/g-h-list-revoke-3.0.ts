/**
 * List and revoke under the AgentOS 3.0 line (SA-6): owner-filtered for non-admins, revoke of
 * another owner's account 404, of a workspace-level one 403, identity-less callers refused under
 * user isolation; and the 2.9 line unchanged. On both stores, through the real gateway.
 */
import t, { type Test } from 'tap'
import { startRuntime } from '../../helpers/runtime.js'
import { ADMIN, jConfig, jwt, sConfig, stack, type Reply, type Stack } from '../fixtures.js'
import { grants, mint, refused, type MintedAccount, onStore } from './harness.js'

const runtime = await startRuntime(t)
const MISSING_IDENTITY = 'Authenticated request is missing a user identity'
const WORKSPACE_LEVEL = 'Cannot revoke a workspace-level service account'
const notFound = (id: string) => `Service account '${id}' not found`
const MANAGE = ['service_accounts:read', 'service_accounts:write', 'service_accounts:delete']

interface Listed {
  id: string
  name: string
  user_id: string | null
  revoked_at: number | null
}
interface Listing {
  data: Listed[]
  meta: { total_count: number; total_pages: number; page: number; limit: number }
}

const list = (fixture: Stack, token: string, query = '?limit=100') =>
  fixture.call('GET', `/service-accounts${query}`, { token })
const revoke = (fixture: Stack, token: string, id: string) =>
  fixture.call('DELETE', `/service-accounts/${id}`, { token })

const listing = async (fixture: Stack, token: string): Promise<Listing> =>
  (await list(fixture, token)).body as Listing

/** The names a listing holds, sorted; fails the test unless it answered 200. */
function names(t: Test, reply: Reply): string[] {
  t.equal(reply.status, 200, reply.status === 200 ? 'listed' : reply.text)
  t.equal(reply.upstream, undefined, 'answered by the gateway')
  return (reply.body as Listing).data.map((item) => item.name).sort()
}

function deleted(t: Test, reply: Reply): void {
  t.equal(reply.status, 204, reply.status === 204 ? 'revoked' : reply.text)
}

onStore(t, async (t, store) => {
  const admin = await jwt([ADMIN], { sub: 'human-admin' })
  const idlessAdmin = await jwt([ADMIN], { sub: null })
  const alice = await jwt([...MANAGE, 'agents:run'], { sub: 'alice' })
  const bob = await jwt([...MANAGE, 'agents:run'], { sub: 'bob' })
  const idless = await jwt([...MANAGE, 'agents:run'], { sub: null })

  /**
   * Accounts of every kind of owner on a fresh gateway: `ws` workspace-level (minted by an admin
   * JWT without `sub`), `a1` and `a2` alice's, `b1` bob's, `pat` alice's with the right to manage
   * accounts, and `p1` minted by that token (owner `sa:<pat>`).
   */
  async function population(fixture: Stack, prefix: string) {
    const named = (name: string) => `${prefix}-${name}`
    const ws = await mint(fixture, idlessAdmin, { name: named('ws') })
    const a1 = await mint(fixture, alice, { name: named('a1'), scopes: grants('agents:run') })
    const a2 = await mint(fixture, alice, { name: named('a2'), scopes: grants('agents:run') })
    const b1 = await mint(fixture, bob, { name: named('b1'), scopes: grants('agents:run') })
    const pat = await mint(fixture, alice, {
      name: named('pat'),
      scopes: grants(...MANAGE, 'agents:run'),
      allow_privileged_scopes: true,
    })
    const p1 = await mint(fixture, pat.token, { name: named('p1'), scopes: grants('agents:run') })
    return { ws, a1, a2, b1, pat, p1, named }
  }

  void t.test('the 3.0 line under user isolation', async (t) => {
    const J = await stack(
      t,
      runtime,
      jConfig({ user_isolation: true }, await store.section()),
      {},
      {
        agentOsLine: '3.0',
      },
    )
    const { ws, a1, a2, b1, pat, p1, named } = await population(J, 'iso')

    await t.test('SA-6 the owner recorded at mint is the minter’s user id', async (t) => {
      const owners = new Map((await listing(J, admin)).data.map((item) => [item.id, item.user_id]))
      t.equal(owners.get(ws.id), null, 'an admin JWT without sub: workspace-level')
      t.equal(owners.get(a1.id), 'alice')
      t.equal(owners.get(b1.id), 'bob')
      t.equal(owners.get(p1.id), `sa:${named('pat')}`, 'a service account: its principal')
    })

    await t.test('SA-6 a non-admin lists its own accounts and workspace-level ones', async (t) => {
      t.same(names(t, await list(J, alice)), [named('a1'), named('a2'), named('pat'), named('ws')])
      t.same(names(t, await list(J, bob)), [named('b1'), named('ws')])
      t.same(names(t, await list(J, pat.token)), [named('p1'), named('ws')], 'a token: sa:<name>')
    })

    await t.test('SA-6 meta counts the filtered rows; paging runs over them', async (t) => {
      const first = await list(J, alice, '?limit=3&sort_by=name&sort_order=asc')
      t.same(names(t, first), [named('a1'), named('a2'), named('pat')])
      t.strictSame((first.body as Listing).meta, {
        page: 1,
        limit: 3,
        total_pages: 2,
        total_count: 4,
        search_time_ms: 0,
      })
      const second = await list(J, alice, '?limit=3&page=2&sort_by=name&sort_order=asc')
      t.same(names(t, second), [named('ws')])
    })

    await t.test('SA-6 an admin sees every account, with or without sub', async (t) => {
      const all = [ws, a1, a2, b1, pat, p1].map((account) => account.body.name).sort()
      t.same(names(t, await list(J, admin)), all)
      t.same(names(t, await list(J, idlessAdmin)), all, 'an admin is never scoped')
    })

    await t.test(
      'SA-6 a non-admin JWT without sub → 403 "missing a user identity" on list and revoke',
      async (t) => {
        refused(t, await list(J, idless), 403, MISSING_IDENTITY)
        refused(t, await revoke(J, idless, ws.id), 403, MISSING_IDENTITY)
        refused(t, await revoke(J, idless, 'nope'), 403, MISSING_IDENTITY)
        t.ok(names(t, await list(J, admin)).includes(named('ws')), 'nothing was revoked')
      },
    )

    await t.test(
      'SA-6 revoking another user’s account → 404 as an unknown id; a workspace-level one → 403',
      async (t) => {
        refused(t, await revoke(J, bob, a1.id), 404, notFound(a1.id))
        refused(t, await revoke(J, bob, 'nope'), 404, notFound('nope'))
        refused(t, await revoke(J, bob, ws.id), 403, WORKSPACE_LEVEL)
        refused(t, await revoke(J, pat.token, a1.id), 404, notFound(a1.id))
        refused(t, await revoke(J, alice, ws.id), 403, WORKSPACE_LEVEL)
        const kept = (await listing(J, admin)).data.find((item) => item.id === a1.id)
        t.equal(kept?.revoked_at, null, 'alice’s account was not revoked')
      },
    )

    await t.test('SA-6 one’s own account → 204, again 204; an admin revokes any', async (t) => {
      deleted(t, await revoke(J, bob, b1.id))
      deleted(t, await revoke(J, bob, b1.id))
      refused(t, await revoke(J, alice, b1.id), 404, notFound(b1.id))
      deleted(t, await revoke(J, pat.token, p1.id))
      deleted(t, await revoke(J, admin, a2.id))
      deleted(t, await revoke(J, admin, ws.id))
      const revoked = (await listing(J, admin)).data.filter((item) => item.revoked_at !== null)
      t.same(revoked.map((item) => item.name).sort(), [
        named('a2'),
        named('b1'),
        named('p1'),
        named('ws'),
      ])
    })
  })

  void t.test('the 3.0 line without user isolation', async (t) => {
    const J = await stack(
      t,
      runtime,
      jConfig({}, await store.section()),
      {},
      { agentOsLine: '3.0' },
    )
    const { a1, ws, named } = await population(J, 'open')

    await t.test('SA-6 the filter applies to non-admins all the same', async (t) => {
      t.same(names(t, await list(J, bob)), [named('b1'), named('ws')])
    })

    await t.test(
      'SA-6 a JWT without sub lists the workspace-level accounts only, and may revoke none of another’s',
      async (t) => {
        t.same(names(t, await list(J, idless)), [named('ws')])
        refused(t, await revoke(J, idless, a1.id), 404, notFound(a1.id))
        refused(t, await revoke(J, idless, ws.id), 403, WORKSPACE_LEVEL)
      },
    )
  })

  void t.test('the 3.0 line with the security key and the scheduler', async (t) => {
    const S = await stack(t, runtime, sConfig(await store.section()), {}, { agentOsLine: '3.0' })
    const manager = await mint(S, 'root-key-5f0c8e2a9b7d4c1e6a3f8b0d', {
      name: 'sk-manager',
      scopes: grants(...MANAGE, 'agents:run'),
      allow_privileged_scopes: true,
    })
    const child = await mint(S, manager.token, { name: 'sk-child', scopes: grants('agents:run') })
    const scheduled = await mint(S, 'itok-scheduler-3e9a7c1f5b2d8e4a6c0f', {
      name: 'sk-sched',
      scopes: grants('agents:run'),
    })
    const shared = await mint(S, 'root-key-5f0c8e2a9b7d4c1e6a3f8b0d', { name: 'sk-shared' })

    await t.test('SA-6 owners: the security key null, the scheduler __scheduler__', async (t) => {
      t.equal(manager.body.user_id, null)
      t.equal(scheduled.body.user_id, '__scheduler__')
      t.equal(child.body.user_id, 'sa:sk-manager')
    })

    await t.test('SA-6 the security key (an unscoped root) sees and revokes all', async (t) => {
      t.same(names(t, await list(S, 'root-key-5f0c8e2a9b7d4c1e6a3f8b0d')), [
        'sk-child',
        'sk-manager',
        'sk-sched',
        'sk-shared',
      ])
      refused(t, await revoke(S, manager.token, scheduled.id), 404, notFound(scheduled.id))
      refused(t, await revoke(S, manager.token, shared.id), 403, WORKSPACE_LEVEL)
      deleted(t, await revoke(S, 'root-key-5f0c8e2a9b7d4c1e6a3f8b0d', scheduled.id))
      deleted(t, await revoke(S, 'root-key-5f0c8e2a9b7d4c1e6a3f8b0d', shared.id))
    })

    await t.test('SA-6 a token lists what it minted and the workspace-level ones', async (t) => {
      t.same(names(t, await list(S, manager.token)), ['sk-child', 'sk-manager', 'sk-shared'])
      deleted(t, await revoke(S, manager.token, child.id))
    })
  })

  void t.test('the 2.9 line is unchanged (SA-2, SA-3), user isolation on', async (t) => {
    const J = await stack(t, runtime, jConfig({ user_isolation: true }, await store.section()))
    const { ws, a1, a2, b1, pat, p1 } = await population(J, 'v29')
    const all = [ws, a1, a2, b1, pat, p1].map((account: MintedAccount) => account.body.name).sort()

    await t.test('SA-2 every lister sees every account, a JWT without sub too', async (t) => {
      t.same(names(t, await list(J, bob)), all)
      t.same(names(t, await list(J, idless)), all)
      t.same(names(t, await list(J, pat.token)), all)
    })

    await t.test('SA-3 anyone with the scope revokes any account', async (t) => {
      deleted(t, await revoke(J, bob, a1.id))
      deleted(t, await revoke(J, bob, ws.id))
      deleted(t, await revoke(J, idless, a2.id))
      deleted(t, await revoke(J, pat.token, b1.id))
      refused(t, await revoke(J, bob, 'nope'), 404, notFound('nope'))
    })
  })
})
