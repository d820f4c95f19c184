/** The 3.0 schedules of the demo runtime, as an open AgentOS 3.0.0a3 answers them. */
import t from 'tap'
import type { AgentRuntime } from '../../../demo/runtime/index.js'
import { call, startRuntime } from './helpers.js'

interface Schedule {
  id: string
  enabled: boolean
  next_run_at: number | null
}

const NIGHTLY = {
  name: 'nightly',
  cron_expr: '0 3 * * *',
  endpoint: '/agents/a1/runs',
  payload: { message: 'tick', user_id: 'mallory', stream: true, version: 2 },
  user_id: 'mallory',
}

async function createSchedule(runtime: AgentRuntime, body: object = NIGHTLY): Promise<Schedule> {
  const created = await call(runtime.url, 'POST', '/schedules', body)
  if (created.status !== 201)
    throw new Error(`create: ${created.status} ${JSON.stringify(created.body)}`)
  return created.body as Schedule
}

void t.test('create: defaults, no owner whatever the body says, validation texts', async (t) => {
  const runtime = await startRuntime(t, { agentos: '3.0' })
  const created = await call(runtime.url, 'POST', '/schedules', { ...NIGHTLY, method: 'post' })
  t.equal(created.status, 201)
  const schedule = created.body as Record<string, unknown>
  t.match(schedule, {
    name: 'nightly',
    method: 'POST',
    endpoint: '/agents/a1/runs',
    timezone: 'UTC',
    timeout_seconds: 3600,
    max_retries: 0,
    retry_delay_seconds: 60,
    enabled: true,
    next_run_at: Number,
    description: null,
    updated_at: null,
  })
  t.notOk('user_id' in schedule, 'the response model has no owner')

  const again = await call(runtime.url, 'POST', '/schedules', NIGHTLY)
  t.equal(again.status, 409)
  t.same(again.body, { detail: "Schedule with name 'nightly' already exists" })
  const badCron = await call(runtime.url, 'POST', '/schedules', {
    ...NIGHTLY,
    name: 'b',
    cron_expr: 'often',
  })
  t.same([badCron.status, badCron.body], [422, { detail: 'Invalid cron expression: often' }])
  const badZone = await call(runtime.url, 'POST', '/schedules', {
    ...NIGHTLY,
    name: 'c',
    timezone: 'Mars/Base',
  })
  t.same([badZone.status, badZone.body], [422, { detail: 'Invalid timezone: Mars/Base' }])
  const invalid = await call(runtime.url, 'POST', '/schedules', {
    name: '-x',
    endpoint: 'http://evil/',
    method: 'TRACE',
    timeout_seconds: 0,
  })
  t.equal(invalid.status, 422)
  t.match(invalid.body, {
    detail: [
      { type: 'value_error', loc: ['body', 'name'], msg: /^Value error, Name must start/ },
      { type: 'missing', loc: ['body', 'cron_expr'], msg: 'Field required' },
      {
        type: 'value_error',
        loc: ['body', 'endpoint'],
        msg: "Value error, Endpoint must start with '/'",
      },
      {
        loc: ['body', 'method'],
        msg: 'Value error, Method must be GET, POST, PUT, PATCH, or DELETE',
      },
      { type: 'greater_than_equal', loc: ['body', 'timeout_seconds'] },
    ],
  })
})

void t.test('list (paginated, unfiltered), get, patch, delete', async (t) => {
  const runtime = await startRuntime(t, { agentos: '3.0' })
  const first = await createSchedule(runtime)
  const second = await createSchedule(runtime, {
    ...NIGHTLY,
    name: 'hourly',
    cron_expr: '0 * * * *',
  })
  const page = await call(runtime.url, 'GET', '/schedules?limit=1&page=2')
  t.match(page.body, {
    data: [{ id: second.id }],
    meta: { page: 2, limit: 1, total_pages: 2, total_count: 2 },
  })
  const tooBig = await call(runtime.url, 'GET', '/schedules?limit=1001')
  t.match(tooBig, { status: 422, body: { detail: [{ type: 'less_than_equal' }] } })

  t.match((await call(runtime.url, 'GET', `/schedules/${first.id}`)).body, { id: first.id })
  const missing = await call(runtime.url, 'GET', '/schedules/nope')
  t.same([missing.status, missing.body], [404, { detail: 'Schedule not found' }])

  const renamed = await call(runtime.url, 'PATCH', `/schedules/${first.id}`, {
    name: 'nightly-2',
    cron_expr: '30 4 * * *',
    timezone: 'Europe/Paris',
  })
  t.match(renamed.body, { name: 'nightly-2', timezone: 'Europe/Paris', updated_at: Number })
  t.not((renamed.body as Schedule).next_run_at, first.next_run_at, 'the next run moved')
  const clash = await call(runtime.url, 'PATCH', `/schedules/${first.id}`, { name: 'hourly' })
  t.same(clash.body, { detail: "Schedule with name 'hourly' already exists" })
  const nulled = await call(runtime.url, 'PATCH', `/schedules/${first.id}`, { cron_expr: null })
  t.match(nulled, {
    status: 422,
    body: { detail: [{ msg: "Value error, 'cron_expr' cannot be set to null" }] },
  })
  const badCron = await call(runtime.url, 'PATCH', `/schedules/${first.id}`, {
    cron_expr: '61 * * * *',
  })
  t.same(badCron.body, { detail: 'Invalid cron expression: 61 * * * *' })
  const unchanged = await call(runtime.url, 'PATCH', `/schedules/${first.id}`, {})
  t.match(unchanged.body, { name: 'nightly-2' })
  const validatedFirst = await call(runtime.url, 'PATCH', '/schedules/nope', { max_retries: 11 })
  t.equal(validatedFirst.status, 422, 'the body is validated before the schedule is looked up')
  t.equal((await call(runtime.url, 'PATCH', '/schedules/nope', {})).status, 404)

  t.equal((await call(runtime.url, 'DELETE', `/schedules/${first.id}`)).status, 204)
  t.equal((await call(runtime.url, 'DELETE', `/schedules/${first.id}`)).status, 404)
})

void t.test('disable, enable and a disabled trigger', async (t) => {
  const runtime = await startRuntime(t, { agentos: '3.0' })
  const schedule = await createSchedule(runtime)
  const disabled = await call(runtime.url, 'POST', `/schedules/${schedule.id}/disable`)
  t.same(Object.keys(disabled.body as object).sort(), [
    'enabled',
    'id',
    'name',
    'next_run_at',
    'updated_at',
  ])
  t.match(disabled.body, { id: schedule.id, enabled: false })
  const listed = await call(runtime.url, 'GET', '/schedules?enabled=false')
  t.equal((listed.body as { data: unknown[] }).data.length, 1)
  const refused = await call(runtime.url, 'POST', `/schedules/${schedule.id}/trigger`)
  t.same([refused.status, refused.body], [409, { detail: 'Schedule is disabled' }])
  const enabled = await call(runtime.url, 'POST', `/schedules/${schedule.id}/enable`)
  t.match(enabled.body, { enabled: true, next_run_at: Number })
  const missing = await call(runtime.url, 'POST', '/schedules/nope/enable')
  t.same(missing.body, { detail: 'Schedule not found' })
})

void t.test(
  'trigger runs the payload as the executor does: no owner, background, live version',
  async (t) => {
    const runtime = await startRuntime(t, { agentos: '3.0' })
    const schedule = await createSchedule(runtime)
    runtime.clear()
    const fired = await call(runtime.url, 'POST', `/schedules/${schedule.id}/trigger`)
    t.equal(fired.status, 200)
    const run = fired.body as { id: string; run_id: string; output: Record<string, unknown> }
    t.match(run, { schedule_id: schedule.id, attempt: 1, status: 'success', status_code: 200 })
    t.notOk('user_id' in run)
    t.match(run.output, { run_id: run.run_id, agent_id: 'a1', user_id: null, version: null })

    const executed = runtime.requests.find((request) => request.path === '/agents/a1/runs')
    t.match(executed?.headers, { authorization: /^Bearer \S+$/ })
    t.notOk(executed?.headers['x-schedule-owner'], 'an unowned schedule sends no owner')
    t.same(executed?.form, { message: ['tick'], stream: ['false'], background: ['true'] })
    const jobs = (await call(runtime.url, 'GET', '/queue/jobs')).body as { jobs: object[] }
    t.match(jobs.jobs, [{ run_id: run.run_id, user_id: null }], 'the fired run is a background job')

    const runs = await call(runtime.url, 'GET', `/schedules/${schedule.id}/runs`)
    t.match(runs.body, { data: [{ id: run.id }], meta: { total_count: 1, limit: 100 } })
    const one = await call(runtime.url, 'GET', `/schedules/${schedule.id}/runs/${run.id}`)
    t.match(one.body, { id: run.id, run_id: run.run_id })
    const other = await createSchedule(runtime, { ...NIGHTLY, name: 'other' })
    const foreign = await call(runtime.url, 'GET', `/schedules/${other.id}/runs/${run.id}`)
    t.same([foreign.status, foreign.body], [404, { detail: 'Schedule run not found' }])
    t.equal((await call(runtime.url, 'GET', '/schedules/nope/runs')).status, 404)
  },
)

void t.test(
  'a non-run endpoint is called with the payload as JSON; a failure is recorded',
  async (t) => {
    const runtime = await startRuntime(t, { agentos: '3.0' })
    const echo = await createSchedule(runtime, {
      name: 'echo',
      cron_expr: '*/5 * * * *',
      endpoint: '/echo/scheduled',
      method: 'PUT',
      payload: { a: 1 },
    })
    const fired = await call(runtime.url, 'POST', `/schedules/${echo.id}/trigger`)
    t.match(fired.body, {
      status: 'success',
      run_id: null,
      output: { method: 'PUT', json: { a: 1 } },
    })
    const broken = await createSchedule(runtime, {
      name: 'broken',
      cron_expr: '*/5 * * * *',
      endpoint: '/status/503',
      method: 'GET',
    })
    const failed = await call(runtime.url, 'POST', `/schedules/${broken.id}/trigger`)
    t.match(failed.body, { status: 'failed', status_code: 503, error: /Service Unavailable/ })
  },
)

void t.test('the 2.9 line keeps the generic schedule routes', async (t) => {
  const runtime = await startRuntime(t)
  const reply = await call(runtime.url, 'POST', '/schedules/s1/trigger?user_id=u1')
  t.match(reply.body, { route: 'POST /schedules/{schedule_id}/trigger', user_id: 'u1' })
})
