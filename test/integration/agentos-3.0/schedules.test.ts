/**
 * Schedules under the AgentOS 3.0 line (V3-SCHED-1 to V3-SCHED-3, V3-SCHED-1G to V3-SCHED-3G):
 * through the gateway in front of an open AgentOS 3.0.0a3, a non-admin schedules only run
 * endpoints it may run, on create, repoint, enable and trigger; a scoped caller sees and changes
 * only its own schedules.
 */
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
  type Stack,
} from './helpers.js'

const ONLY_ADMINS = 'Only admins can schedule an endpoint that is not a run endpoint'
const SCHEDULES = ['schedules:read', 'schedules:write', 'schedules:delete']

const body = (name: string, endpoint: string, method?: string) => ({
  name,
  cron_expr: '0 * * * *',
  endpoint,
  ...(method === undefined ? {} : { method }),
})

async function create(stack: Stack, credential: string, json: unknown): Promise<string> {
  const reply = await stack.call('POST', '/schedules', { token: credential, json })
  if (reply.status !== 201) throw new Error(`create: ${reply.status} ${reply.text}`)
  return (reply.body as { id: string }).id
}

void t.test('schedules, user isolation on', async (t) => {
  const stack = await start(t, { userIsolation: true })
  const admin = await token([ADMIN], 'root')
  const alice = await token([...SCHEDULES, 'agents:run'], 'alice')
  const bob = await token([...SCHEDULES, 'agents:run', 'teams:run'], 'bob')
  const carol = await token(['schedules:read', 'schedules:write'], 'carol')
  const ci = await mintAccount(stack, admin, 'ci', [...SCHEDULES, 'agents:run'])

  await t.test('the target of a new schedule (V3-SCHED-1, V3-SCHED-2)', async (t) => {
    for (const [endpoint, method] of [
      ['/config', 'GET'],
      ['/sessions/s-1', 'DELETE'],
      ['/agents/a1/runs/r1/continue', 'POST'],
      ['/agents/a1/runs', 'PUT'],
    ] as const) {
      refused(
        t,
        await stack.call('POST', '/schedules', {
          token: alice,
          json: body(`x-${method}`, endpoint, method),
        }),
        403,
        ONLY_ADMINS,
      )
    }
    refused(
      t,
      await stack.call('POST', '/schedules', { token: carol, json: body('c1', '/agents/a1/runs') }),
      403,
      insufficient('agents:run'),
    )
    refused(
      t,
      await stack.call('POST', '/schedules', { token: alice, json: body('t1', '/teams/t1/runs') }),
      403,
      insufficient('teams:run'),
    )
    const perAgent = await token(['schedules:write', 'agents:a1:run'], 'dave')
    refused(
      t,
      await stack.call('POST', '/schedules', {
        token: perAgent,
        json: body('d2', '/agents/a2/runs'),
      }),
      403,
      insufficient('agents:run'),
    )
    const own = await stack.call('POST', '/schedules', {
      token: perAgent,
      json: body('d1', '/agents/a1/runs/'),
    })
    passed(t, own, 201)
    const byAdmin = await stack.call('POST', '/schedules', {
      token: admin,
      json: body('admin-config', '/config', 'GET'),
    })
    passed(t, byAdmin, 201)
    const id = (byAdmin.body as { id: string }).id
    t.same(await stack.owners.ownerOf('schedule', id), { known: true, owner: 'root' })
    const bySa = await create(stack, ci, body('ci-run', '/agents/a1/runs'))
    t.same(await stack.owners.ownerOf('schedule', bySa), { known: true, owner: 'sa:ci' })
  })

  const aliceRun = await create(stack, alice, body('alice-run', '/agents/a1/runs'))
  const bobRun = await create(stack, bob, body('bob-run', '/teams/t1/runs'))

  await t.test('repointing, enabling and triggering (V3-SCHED-1)', async (t) => {
    refused(
      t,
      await stack.call('PATCH', `/schedules/${aliceRun}`, {
        token: alice,
        json: { endpoint: '/config', method: 'GET' },
      }),
      403,
      ONLY_ADMINS,
    )
    // The method alone over the stored endpoint, the endpoint alone over the stored method.
    refused(
      t,
      await stack.call('PATCH', `/schedules/${aliceRun}`, {
        token: alice,
        json: { method: 'GET' },
      }),
      403,
      ONLY_ADMINS,
    )
    refused(
      t,
      await stack.call('PATCH', `/schedules/${aliceRun}`, {
        token: alice,
        json: { endpoint: '/teams/t1/runs' },
      }),
      403,
      insufficient('teams:run'),
    )
    passed(
      t,
      await stack.call('PATCH', `/schedules/${aliceRun}`, {
        token: alice,
        json: { endpoint: '/agents/a2/runs', description: 'other agent' },
      }),
      200,
    )
    // No target in the update: nothing to check.
    passed(
      t,
      await stack.call('PATCH', `/schedules/${aliceRun}`, {
        token: alice,
        json: { description: 'renamed' },
      }),
      200,
    )
    // The admin repoints alice's schedule where only an admin may; alice may not enable or
    // trigger it, nor disable-and-trigger it past the check: the upstream's 409 comes first.
    passed(
      t,
      await stack.call('PATCH', `/schedules/${aliceRun}`, {
        token: admin,
        json: { endpoint: '/config', method: 'GET' },
      }),
      200,
    )
    refused(
      t,
      await stack.call('POST', `/schedules/${aliceRun}/enable`, { token: alice }),
      403,
      ONLY_ADMINS,
    )
    refused(
      t,
      await stack.call('POST', `/schedules/${aliceRun}/trigger`, { token: alice }),
      403,
      ONLY_ADMINS,
    )
    passed(t, await stack.call('POST', `/schedules/${aliceRun}/disable`, { token: alice }), 200)
    const disabled = await stack.call('POST', `/schedules/${aliceRun}/trigger`, { token: alice })
    passed(t, disabled, 409)
    t.equal(disabled.detail, 'Schedule is disabled')
    passed(t, await stack.call('POST', `/schedules/${aliceRun}/enable`, { token: admin }), 200)
    passed(t, await stack.call('POST', `/schedules/${bobRun}/enable`, { token: bob }), 200)
    passed(t, await stack.call('POST', `/schedules/${bobRun}/trigger`, { token: bob }), 200)
  })

  await t.test("another user's schedule is not found (V3-SCHED-3)", async (t) => {
    for (const [method, path] of [
      ['GET', `/schedules/${aliceRun}`],
      ['PATCH', `/schedules/${aliceRun}`],
      ['DELETE', `/schedules/${aliceRun}`],
      ['POST', `/schedules/${aliceRun}/enable`],
      ['POST', `/schedules/${aliceRun}/disable`],
      ['POST', `/schedules/${aliceRun}/trigger`],
      ['GET', `/schedules/${aliceRun}/runs`],
    ] as const) {
      const options = method === 'PATCH' ? { token: bob, json: { name: 'x' } } : { token: bob }
      refused(t, await stack.call(method, path, options), 404, 'Schedule not found')
    }
    refused(
      t,
      await stack.call('GET', `/schedules/${aliceRun}/runs/r-1`, { token: ci }),
      404,
      'Schedule run not found',
    )
    passed(t, await stack.call('GET', `/schedules/${aliceRun}`, { token: admin }), 200)
  })

  await t.test('listings are scoped to the caller (V3-SCHED-3)', async (t) => {
    const ofBob = await stack.call('GET', '/schedules', { token: bob })
    passed(t, ofBob, 200)
    t.same(listedIds(ofBob.body, 'id'), [bobRun])
    t.match((ofBob.body as { meta: unknown }).meta, { total_count: 1, total_pages: 1 })
    const ofAdmin = await stack.call('GET', '/schedules?limit=1000', { token: admin })
    t.equal(listedIds(ofAdmin.body, 'id').length, 5, 'the admin sees every schedule')
    const enabled = await stack.call('GET', '/schedules?enabled=false', { token: bob })
    t.same(listedIds(enabled.body, 'id'), [], "the client's filter kept")
  })

  await t.test('a deleted schedule drops its owner record', async (t) => {
    passed(t, await stack.call('DELETE', `/schedules/${bobRun}`, { token: bob }), 204)
    t.same(await stack.owners.ownerOf('schedule', bobRun), { known: false })
  })
})

void t.test('schedules, isolation off: the target check is not about scoping', async (t) => {
  const stack = await start(t)
  const alice = await token([...SCHEDULES, 'agents:run'], 'alice')
  const bob = await token([...SCHEDULES], 'bob')
  const id = await create(stack, alice, body('a', '/agents/a1/runs'))
  t.same(await stack.owners.ownerOf('schedule', id), { known: true, owner: 'alice' })
  // Unscoped: bob sees alice's schedule as AgentOS shows it him, but may not enable its run.
  passed(t, await stack.call('GET', `/schedules/${id}`, { token: bob }), 200)
  refused(
    t,
    await stack.call('POST', `/schedules/${id}/enable`, { token: bob }),
    403,
    insufficient('agents:run'),
  )
  const listing = await stack.call('GET', '/schedules', { token: bob })
  t.same(listedIds(listing.body, 'id'), [id])
  // A stored schedule the upstream does not have: its own 404.
  passed(t, await stack.call('POST', '/schedules/missing/enable', { token: bob }), 404)
})
