/**
 * Component ownership under the AgentOS 3.0 line (V3-COMP-1 to V3-COMP-4, V3-COMP-1G to
 * V3-COMP-4G, V3-OWN-1G): through the gateway in front of an open AgentOS 3.0.0a3, rows get the
 * owner AgentOS would stamp; another user's component is not found, a shared one read-only,
 * listings hold what the caller may see, a config names only components the caller sees.
 */
import { createHash } from 'node:crypto'
import t from 'tap'
import {
  ADMIN,
  insufficient,
  listedIds,
  mintAccount,
  passed,
  refused,
  start,
  token,
} from './helpers.js'

const COMPONENTS = ['components:read', 'components:write', 'components:delete']
const suffix = (scoped: string) => createHash('sha256').update(scoped).digest('hex').slice(0, 8)

void t.test('components, user isolation on', async (t) => {
  const stack = await start(t, { userIsolation: true })
  const admin = await token([ADMIN], 'root')
  const workspaceAdmin = await token([ADMIN], null)
  const alice = await token(COMPONENTS, 'alice')
  const bob = await token(COMPONENTS, 'bob')
  const ci = await mintAccount(stack, admin, 'ci', COMPONENTS)

  // V3-COMP-3: a scoped caller's unnamed component gets the owner-derived id, and its owner.
  const created = await stack.call('POST', '/components', {
    token: alice,
    json: { name: 'Alpha Bot', component_type: 'agent', config: { instructions: 'hi' } },
  })
  passed(t, created, 201)
  const aliceId = `alpha-bot-${suffix('alice')}`
  t.equal((created.body as { component_id: string }).component_id, aliceId, 'owner-scoped id')
  t.match(created.forwarded?.json, { component_id: aliceId }, 'pinned in the body sent on')
  t.same(await stack.owners.ownerOf('component', aliceId), { known: true, owner: 'alice' })

  // A named component keeps its id; the owner is still recorded.
  passed(
    t,
    await stack.call('POST', '/components', {
      token: bob,
      json: { name: 'Bob Bot', component_id: 'bob-bot', component_type: 'agent' },
    }),
    201,
  )
  t.same(await stack.owners.ownerOf('component', 'bob-bot'), { known: true, owner: 'bob' })

  // A workspace-level component: created by a caller with no user id (owner null, shared).
  passed(
    t,
    await stack.call('POST', '/components', {
      token: workspaceAdmin,
      json: { name: 'Shared', component_type: 'team', stage: 'published' },
    }),
    201,
  )
  t.same(await stack.owners.ownerOf('component', 'shared'), { known: true, owner: null })
  // An admin with a user id is unscoped: no suffix, its own id as owner.
  passed(
    t,
    await stack.call('POST', '/components', {
      token: admin,
      json: { name: 'Admin Bot', component_type: 'agent' },
    }),
    201,
  )
  t.same(await stack.owners.ownerOf('component', 'admin-bot'), { known: true, owner: 'root' })

  // A row made past the gateway: its owner was never recorded.
  t.equal(
    (await stack.direct('POST', '/components', { name: 'Stray', component_type: 'agent' })).status,
    201,
  )

  await t.test("another user's component is not found (V3-COMP-1, V3-COMP-2)", async (t) => {
    const notFound = `Component ${aliceId} not found`
    const routes: [string, string, unknown?][] = [
      ['GET', `/components/${aliceId}`],
      ['PATCH', `/components/${aliceId}`, { description: 'mine now' }],
      ['DELETE', `/components/${aliceId}`],
      ['POST', `/components/${aliceId}/restore`],
      ['GET', `/components/${aliceId}/configs`],
      ['GET', `/components/${aliceId}/configs/current`],
      ['GET', `/components/${aliceId}/configs/1`],
      ['POST', `/components/${aliceId}/configs`, { config: {} }],
      ['PATCH', `/components/${aliceId}/configs/1`, { notes: 'x' }],
      ['DELETE', `/components/${aliceId}/configs/1`],
      ['POST', `/components/${aliceId}/configs/1/set-current`],
    ]
    for (const [method, path, json] of routes) {
      const options = json === undefined ? { token: bob } : { token: bob, json }
      await t.test(`bob: ${method} ${path}`, async (t) => {
        refused(t, await stack.call(method, path, options), 404, notFound)
      })
    }
    await t.test('a service account (always scoped) alike', async (t) => {
      refused(
        t,
        await stack.call('PATCH', `/components/${aliceId}`, { token: ci, json: { name: 'x' } }),
        404,
        notFound,
      )
    })
    await t.test('the owner and the admin reach it', async (t) => {
      passed(t, await stack.call('GET', `/components/${aliceId}`, { token: alice }), 200)
      passed(
        t,
        await stack.call('PATCH', `/components/${aliceId}`, {
          token: admin,
          json: { description: 'seen by the admin' },
        }),
        200,
      )
    })
  })

  await t.test('a shared component is read-only to non-admins (V3-COMP-1)', async (t) => {
    passed(t, await stack.call('GET', '/components/shared', { token: bob }), 200)
    refused(
      t,
      await stack.call('PATCH', '/components/shared', { token: bob, json: { name: 'x' } }),
      403,
      'Cannot modify shared component',
    )
    refused(
      t,
      await stack.call('DELETE', '/components/shared', { token: ci }),
      403,
      'Cannot delete shared component',
    )
    refused(
      t,
      await stack.call('POST', '/components/shared/configs', {
        token: bob,
        json: { config: {} },
      }),
      403,
      'Cannot modify shared component',
    )
    refused(
      t,
      await stack.call('DELETE', '/components/shared/configs/1', { token: bob }),
      403,
      'Cannot delete shared component',
    )
    // Not archived: the upstream's own 409, as AgentOS checks that first.
    const live = await stack.call('POST', '/components/shared/restore', { token: bob })
    passed(t, live, 409)
    t.equal(live.detail, 'Component is not archived')
    // A shared component the upstream does not have is its own 404.
    await stack.owners.record('component', 'gone', null, 0)
    passed(t, await stack.call('PATCH', '/components/gone', { token: bob, json: {} }), 404)
    // Archived by the admin: restoring it is a change of a shared row.
    passed(t, await stack.call('DELETE', '/components/shared', { token: admin }), 204)
    refused(
      t,
      await stack.call('POST', '/components/shared/restore', { token: bob }),
      403,
      'Cannot modify shared component',
    )
    passed(t, await stack.call('POST', '/components/shared/restore', { token: admin }), 200)
  })

  await t.test('the owner archives and restores its own', async (t) => {
    passed(t, await stack.call('DELETE', '/components/bob-bot', { token: bob }), 204)
    passed(t, await stack.call('POST', '/components/bob-bot/restore', { token: bob }), 200)
    t.same(await stack.owners.ownerOf('component', 'bob-bot'), { known: true, owner: 'bob' })
  })

  await t.test('a row whose owner is not known is refused to non-admins (V3-OWN-1G)', async (t) => {
    refused(
      t,
      await stack.call('GET', '/components/stray', { token: bob }),
      404,
      'Component stray not found',
    )
    passed(t, await stack.call('GET', '/components/stray', { token: admin }), 200)
  })

  await t.test('listings hold what the caller may see (V3-COMP-2)', async (t) => {
    const mine = await stack.call('GET', '/components?limit=1', { token: bob })
    passed(t, mine, 200)
    t.same(listedIds(mine.body, 'component_id'), ['bob-bot'], 'the first page of one')
    t.match((mine.body as { meta: unknown }).meta, { page: 1, limit: 1, total_count: 2 })
    const all = await stack.call('GET', '/components?limit=100', { token: bob })
    t.same(listedIds(all.body, 'component_id').sort(), ['bob-bot', 'shared'])
    const page2 = await stack.call('GET', '/components?limit=1&page=2', { token: bob })
    t.same(listedIds(page2.body, 'component_id'), ['shared'])
    const teams = await stack.call('GET', '/components?component_type=team', { token: bob })
    t.same(listedIds(teams.body, 'component_id'), ['shared'], "the client's filters kept")
    const admins = await stack.call('GET', '/components?limit=100', { token: admin })
    t.same(
      listedIds(admins.body, 'component_id').sort(),
      ['admin-bot', aliceId, 'bob-bot', 'shared', 'stray'].sort(),
      'the admin sees every row',
    )
    const invalid = await stack.call('GET', '/components?limit=1000', { token: bob })
    passed(t, invalid, 422)
  })

  await t.test('a config names only components the caller sees (V3-COMP-2)', async (t) => {
    const team = (members: string[]) => ({
      name: `Team ${members.join(' ')}`,
      component_type: 'team',
      config: { members: members.map((agent_id) => ({ agent_id })) },
    })
    refused(
      t,
      await stack.call('POST', '/components', { token: bob, json: team(['bob-bot', aliceId]) }),
      404,
      `Component ${aliceId} not found`,
    )
    refused(
      t,
      await stack.call('POST', '/components', { token: bob, json: team(['stray']) }),
      404,
      'Component stray not found',
    )
    refused(
      t,
      await stack.call('POST', '/components/bob-bot/configs', {
        token: bob,
        json: { config: { workflow_id: aliceId } },
      }),
      404,
      `Component ${aliceId} not found`,
    )
    // Its own, shared ones, and ids no component has (code-defined agents) are fine.
    passed(
      t,
      await stack.call('POST', '/components', {
        token: bob,
        json: team(['bob-bot', 'shared', 'a1']),
      }),
      201,
    )
    passed(t, await stack.call('POST', '/components', { token: admin, json: team([aliceId]) }), 201)
  })

  await t.test('restore needs components:delete (V3-SCOPE-1)', async (t) => {
    const writer = await token(['components:read', 'components:write'], 'bob')
    refused(
      t,
      await stack.call('POST', '/components/bob-bot/restore', { token: writer }),
      403,
      insufficient('components:delete'),
    )
  })
})

void t.test('components, user isolation off: JWT users are unscoped', async (t) => {
  const stack = await start(t)
  const alice = await token(COMPONENTS, 'alice')
  const bob = await token(COMPONENTS, 'bob')
  const created = await stack.call('POST', '/components', {
    token: alice,
    json: { name: 'Plain', component_type: 'agent' },
  })
  passed(t, created, 201)
  t.equal((created.body as { component_id: string }).component_id, 'plain', 'no owner suffix')
  t.same(await stack.owners.ownerOf('component', 'plain'), { known: true, owner: 'alice' })
  // AgentOS scopes nobody here: bob reads and changes alice's component as AgentOS lets him.
  passed(
    t,
    await stack.call('PATCH', '/components/plain', { token: bob, json: { name: 'x' } }),
    200,
  )
  const listing = await stack.call('GET', '/components', { token: bob })
  t.same(listedIds(listing.body, 'component_id'), ['plain'])
})
