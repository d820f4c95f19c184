/** The 3.0 component catalogue of the demo runtime, and runs pinned to a component version. */
import t, { type Test } from 'tap'
import type { AgentRuntime } from '../../../demo/runtime/index.js'
import { call, form, startRuntime } from './helpers.js'

const base = (runtime: AgentRuntime) => runtime.url

void t.test('create: id from the name, no owner, a draft first version', async (t) => {
  const runtime = await startRuntime(t, { agentos: '3.0' })
  const created = await call(base(runtime), 'POST', '/components', {
    name: 'Research Agent_2',
    component_type: 'agent',
    config: { instructions: 'be brief' },
    user_id: 'mallory',
  })
  t.equal(created.status, 201)
  t.match(created.body, {
    component_id: 'research-agent-2',
    component_type: 'agent',
    name: 'Research Agent_2',
    created_at: Number,
  })
  for (const absent of ['user_id', 'current_version', 'deleted_at', 'description']) {
    t.notOk(absent in (created.body as object), `${absent} is left out when null`)
  }
  const config = await call(base(runtime), 'GET', '/components/research-agent-2/configs/1')
  t.match(config.body, { component_id: 'research-agent-2', version: 1, stage: 'draft' })
  const again = await call(base(runtime), 'POST', '/components', {
    name: 'x',
    component_id: 'research-agent-2',
    component_type: 'agent',
  })
  t.equal(again.status, 409)
  const published = await call(base(runtime), 'POST', '/components', {
    name: 'Live',
    component_type: 'team',
    stage: 'published',
  })
  t.match(published.body, { component_id: 'live', current_version: 1 })
  const invalid = await call(base(runtime), 'POST', '/components', { component_type: 'robot' })
  t.match(invalid, {
    status: 422,
    body: {
      detail: [
        { type: 'missing', loc: ['body', 'name'] },
        {
          type: 'enum',
          loc: ['body', 'component_type'],
          msg: "Input should be 'agent', 'team' or 'workflow'",
        },
      ],
    },
  })
  const badStage = await call(base(runtime), 'POST', '/components', {
    name: 'y',
    component_type: 'agent',
    stage: 'final',
  })
  t.equal(badStage.status, 400)
})

void t.test('list is paginated and unfiltered; archive, include_deleted, restore', async (t) => {
  const runtime = await startRuntime(t, { agentos: '3.0' })
  for (const [name, type] of [
    ['One', 'agent'],
    ['Two', 'team'],
    ['Three', 'agent'],
  ]) {
    await call(base(runtime), 'POST', '/components', { name, component_type: type })
  }
  const agents = await call(base(runtime), 'GET', '/components?component_type=agent&limit=1')
  t.match(agents.body, {
    data: [{ component_id: 'one' }],
    meta: { page: 1, limit: 1, total_pages: 2, total_count: 2 },
  })
  const badType = await call(base(runtime), 'GET', '/components?component_type=robot')
  t.equal(badType.status, 422)
  t.equal((await call(base(runtime), 'GET', '/components?limit=101')).status, 422)

  const notArchived = await call(base(runtime), 'POST', '/components/two/restore')
  t.same([notArchived.status, notArchived.body], [409, { detail: 'Component is not archived' }])
  t.equal((await call(base(runtime), 'DELETE', '/components/two')).status, 204)
  const gone = await call(base(runtime), 'GET', '/components/two')
  t.same([gone.status, gone.body], [404, { detail: 'Component two not found' }])
  t.equal((await call(base(runtime), 'DELETE', '/components/two')).status, 404)
  const archived = await call(base(runtime), 'GET', '/components/two?include_deleted=true')
  t.match(archived.body, { component_id: 'two', deleted_at: Number })
  const all = await call(base(runtime), 'GET', '/components?include_deleted=true')
  t.equal((all.body as { meta: { total_count: number } }).meta.total_count, 3)
  const live = await call(base(runtime), 'GET', '/components')
  t.equal((live.body as { meta: { total_count: number } }).meta.total_count, 2)
  const restored = await call(base(runtime), 'POST', '/components/two/restore')
  t.equal(restored.status, 200)
  t.match(restored.body, { component_id: 'two' })
  t.notOk('deleted_at' in (restored.body as object))
  const unknown = await call(base(runtime), 'POST', '/components/nope/restore')
  t.same([unknown.status, unknown.body], [404, { detail: 'Component nope not found' }])
})

void t.test('patch a component; configs: create, publish, set current, delete', async (t) => {
  const runtime = await startRuntime(t, { agentos: '3.0' })
  await call(base(runtime), 'POST', '/components', {
    name: 'Agent One',
    component_id: 'a1',
    component_type: 'agent',
  })
  const patched = await call(base(runtime), 'PATCH', '/components/a1', { description: 'the first' })
  t.match(patched.body, { description: 'the first', updated_at: Number })
  const badType = await call(base(runtime), 'PATCH', '/components/a1', { component_type: 'robot' })
  t.same(badType.body, { detail: "'robot' is not a valid ComponentType" })

  const second = await call(base(runtime), 'POST', '/components/a1/configs', { config: { v: 2 } })
  t.match(second, { status: 201, body: { version: 2, stage: 'draft', config: { v: 2 } } })
  const noCurrent = await call(base(runtime), 'GET', '/components/a1/configs/current')
  t.same([noCurrent.status, noCurrent.body], [404, { detail: 'No current config for a1' }])
  const draftCurrent = await call(base(runtime), 'POST', '/components/a1/configs/2/set-current')
  t.equal(draftCurrent.status, 400, 'only a published version can be current')
  const publish = await call(base(runtime), 'PATCH', '/components/a1/configs/2', {
    stage: 'published',
    notes: 'go',
  })
  t.match(publish.body, { version: 2, stage: 'published', notes: 'go' })
  const frozen = await call(base(runtime), 'PATCH', '/components/a1/configs/2', { notes: 'later' })
  t.equal(frozen.status, 400, 'a published config is not edited')
  const current = await call(base(runtime), 'POST', '/components/a1/configs/2/set-current')
  t.match(current.body, { component_id: 'a1', current_version: 2 })
  t.match((await call(base(runtime), 'GET', '/components/a1/configs/current')).body, { version: 2 })
  const viaPatch = await call(base(runtime), 'PATCH', '/components/a1', { current_version: 9 })
  t.same([viaPatch.status, viaPatch.body], [404, { detail: 'Config a1 v9 not found' }])
  const missing = await call(base(runtime), 'POST', '/components/a1/configs/9/set-current')
  t.same(missing.body, { detail: 'Component a1 or config version 9 not found' })

  const listed = await call(base(runtime), 'GET', '/components/a1/configs?include_config=false')
  t.match(listed.body, [
    { version: 1, stage: 'draft' },
    { version: 2, stage: 'published' },
  ])
  t.notOk('config' in ((listed.body as object[])[0] ?? {}))
  t.equal((await call(base(runtime), 'DELETE', '/components/a1/configs/2')).status, 400)
  t.equal((await call(base(runtime), 'DELETE', '/components/a1/configs/1')).status, 204)
  const deleted = await call(base(runtime), 'GET', '/components/a1/configs/1')
  t.same([deleted.status, deleted.body], [404, { detail: 'Config a1 v1 not found' }])
  const notInt = await call(base(runtime), 'GET', '/components/a1/configs/two')
  t.match(notInt, {
    status: 422,
    body: { detail: [{ type: 'int_parsing', loc: ['path', 'version'] }] },
  })
  const noComponent = await call(base(runtime), 'GET', '/components/zz/configs')
  t.same(noComponent.body, { detail: 'Component zz not found' })
})

/** A 3.0 runtime whose catalogue holds agent a1 (`Agent One`) at version 1. */
async function withAgentOne(t: Test, config: Record<string, unknown>) {
  const runtime = await startRuntime(t, { agentos: '3.0' })
  await call(base(runtime), 'POST', '/components', {
    name: 'Agent One',
    component_id: 'a1',
    component_type: 'agent',
    config,
  })
  return runtime
}

void t.test(
  'an open 3.0 runs any version, draft or published, of a catalogued agent',
  async (t) => {
    const runtime = await withAgentOne(t, { v: 1 })
    const run = (fields: Record<string, string>, family = 'agents', id = 'a1') =>
      call(base(runtime), 'POST', `/${family}/${id}/runs`, form({ message: 'hi', ...fields }))
    const draft = await run({ version: '1', user_id: 'anyone' })
    t.equal(draft.status, 200, 'every caller of an open AgentOS is privileged')
    t.match(draft.body, { agent_id: 'a1', version: 1, user_id: 'anyone' })
    t.match((await run({})).body, { version: null }, 'without a version, the served agent')
    const absent = await run({ version: '7' })
    t.same([absent.status, absent.body], [404, { detail: 'Agent not found' }])
    const uncatalogued = await run({ version: '1' }, 'teams', 't1')
    t.same(uncatalogued.body, { detail: 'Team not found' })
    const notInt = await run({ version: 'latest' })
    t.match(notInt, {
      status: 422,
      body: { detail: [{ type: 'int_parsing', loc: ['body', 'version'], input: 'latest' }] },
    })
    const noMessage = await call(base(runtime), 'POST', '/agents/a1/runs', form({ version: 'x' }))
    t.equal((noMessage.body as { detail: unknown[] }).detail.length, 2, 'all problems at once')

    await call(base(runtime), 'POST', '/components', {
      name: 'Studio Flow',
      component_type: 'workflow',
      stage: 'published',
    })
    t.match((await run({}, 'workflows', 'studio-flow')).body, { workflow_id: 'studio-flow' })
    await call(base(runtime), 'POST', '/components', {
      name: 'Draft Only',
      component_type: 'workflow',
    })
    t.equal((await run({}, 'workflows', 'draft-only')).status, 404, 'nothing current to run')
    t.equal((await run({ version: '1' }, 'workflows', 'draft-only')).status, 200)
  },
)

void t.test(
  'a pinned run is stamped with its version, which a continue resolves again',
  async (t) => {
    const runtime = await withAgentOne(t, {})
    const start = async (fields: Record<string, string>) => {
      const reply = await call(
        base(runtime),
        'POST',
        '/agents/a1/runs',
        form({ message: 'hi', ...fields }),
      )
      return reply.body as { run_id: string; session_id: string; metadata: unknown }
    }
    const pinned = await start({ version: '1', metadata: JSON.stringify({ team: 'x' }) })
    t.same(pinned.metadata, { team: 'x', agno_component_version: 1 })
    const read = await call(
      base(runtime),
      'GET',
      `/agents/a1/runs/${pinned.run_id}?session_id=${pinned.session_id}`,
    )
    t.match(read.body, { metadata: { agno_component_version: 1 } }, 'the run read back shows it')
    t.same((await start({ metadata: 'not json' })).metadata, null, 'unreadable metadata: none')

    const resume = (run: { run_id: string; session_id: string }, family = 'agents', id = 'a1') =>
      call(
        base(runtime),
        'POST',
        `/${family}/${id}/runs/${run.run_id}/continue`,
        form({ session_id: run.session_id }),
      )
    t.equal((await resume(pinned)).status, 200, 'the stamped version resolves')
    t.equal((await call(base(runtime), 'DELETE', '/components/a1/configs/1')).status, 204)
    const gone = await resume(pinned)
    t.same(
      [gone.status, gone.body],
      [404, { detail: `Agent version 1 recorded on run ${pinned.run_id} is no longer available` }],
    )
    t.equal((await resume(await start({}))).status, 200, 'an unstamped run continues')
    t.equal(
      (await resume({ ...pinned, session_id: 'another' })).status,
      200,
      'the run is read in the session the form names',
    )
    t.equal((await resume(pinned, 'agents', 'a2')).status, 200, "and of the path's component")
  },
)

void t.test('the 2.9 line keeps the generic component routes', async (t) => {
  const runtime = await startRuntime(t)
  const reply = await call(base(runtime), 'POST', '/components/c1/restore')
  t.equal(reply.status, 404, '2.9 has no restore route')
  const listed = await call(base(runtime), 'GET', '/components')
  t.match(listed.body, { route: 'GET /components' })
  const run = await call(
    base(runtime),
    'POST',
    '/agents/a1/runs',
    form({ message: 'x', version: 'x' }),
  )
  t.equal(run.status, 200, '2.9 ignores a version field')
})
