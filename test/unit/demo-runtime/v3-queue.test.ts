/** The 3.0 durable job queue of the demo runtime: open to every caller, as on an open AgentOS. */
import t from 'tap'
import { call, form, startRuntime } from './helpers.js'

interface Job {
  id: string
  run_id: string
  session_id: string
  user_id: string | null
  status: string
  payload: Record<string, string>
}

void t.test('a background run is a job that shows its user and input to anyone', async (t) => {
  const runtime = await startRuntime(t, { agentos: '3.0' })
  const secret = { message: 'my diagnosis', user_id: 'alice', background: 'true' }
  const run = await call(runtime.url, 'POST', '/agents/a1/runs', form(secret), {
    'idempotency-key': 'once',
  })
  t.equal(run.status, 200)
  await call(
    runtime.url,
    'POST',
    '/agents/a1/runs',
    form({ message: 'not queued', user_id: 'bob' }),
  )
  await call(runtime.url, 'POST', '/teams/t1/runs', form({ message: 'team', background: 'yes' }))

  const listed = await call(runtime.url, 'GET', '/queue/jobs')
  t.equal(listed.status, 200)
  const jobs = (listed.body as { jobs: Job[] }).jobs
  t.equal(jobs.length, 2, 'only background runs are jobs')
  t.match(jobs[0], {
    component_type: 'agent',
    component_id: 'a1',
    run_id: (run.body as { run_id: string }).run_id,
    user_id: 'alice',
    idempotency_key: 'once',
    payload: secret,
    status: 'completed',
  })
  t.match(jobs[1], { component_type: 'team', user_id: null, payload: { message: 'team' } })

  const one = await call(runtime.url, 'GET', `/queue/jobs/${jobs[0]?.id}`)
  t.same(one.body, jobs[0])
  const missing = await call(runtime.url, 'GET', '/queue/jobs/nope')
  t.equal(missing.status, 404)
  t.same(missing.body, { detail: 'Job queue job nope not found' })
})

void t.test('status filter, limit and stats', async (t) => {
  const runtime = await startRuntime(t, { agentos: '3.0' })
  for (const message of ['one', 'two', 'three']) {
    await call(runtime.url, 'POST', '/agents/a1/runs', form({ message, background: 'true' }))
  }
  const limited = await call(runtime.url, 'GET', '/queue/jobs?limit=2&status=completed')
  t.equal((limited.body as { jobs: Job[] }).jobs.length, 2)
  const none = await call(runtime.url, 'GET', '/queue/jobs?status=failed')
  t.same(none.body, { jobs: [] })
  const bad = await call(runtime.url, 'GET', '/queue/jobs?status=done')
  t.equal(bad.status, 400)
  t.match(bad.body, { detail: /^Invalid status; expected one of \('queued', 'running'/ })
  const notInt = await call(runtime.url, 'GET', '/queue/jobs?limit=many')
  t.equal(notInt.status, 422)
  t.match(notInt.body, { detail: [{ type: 'int_parsing', loc: ['query', 'limit'] }] })
  const stats = await call(runtime.url, 'GET', '/queue/stats')
  t.same(stats.body, {
    counts: { queued: 0, running: 0, paused: 0, completed: 3, failed: 0, cancelled: 0 },
    oldest_queued_age_seconds: null,
  })
})

void t.test('a cancelled job can be requeued once; a completed one cannot', async (t) => {
  const runtime = await startRuntime(t, { agentos: '3.0' })
  const started = await call(
    runtime.url,
    'POST',
    '/agents/a1/runs',
    form({ message: 'long', background: 'true', user_id: 'carol' }),
  )
  const { run_id: runId } = started.body as { run_id: string }
  const [job] = ((await call(runtime.url, 'GET', '/queue/jobs')).body as { jobs: Job[] }).jobs
  const requeue = () => call(runtime.url, 'POST', `/queue/jobs/${job?.id}/requeue`)
  const early = await requeue()
  t.equal(early.status, 400)
  t.same(early.body, { detail: `Job ${job?.id} not found or not in a requeueable state` })

  await call(runtime.url, 'POST', `/agents/a1/runs/${runId}/cancel`, form({}))
  t.match((await call(runtime.url, 'GET', `/queue/jobs/${job?.id}`)).body, { status: 'cancelled' })
  const again = await requeue()
  t.equal(again.status, 200)
  t.match(again.body, { id: job?.id, status: 'queued', max_attempts: 2, user_id: 'carol' })
  t.equal((await requeue()).status, 400, 'a queued job is not requeueable')
  const stats = await call(runtime.url, 'GET', '/queue/stats')
  t.match(stats.body, { counts: { queued: 1 }, oldest_queued_age_seconds: Number })
  const unknown = await call(runtime.url, 'POST', '/queue/jobs/nope/requeue')
  t.same(unknown.body, { detail: 'Job nope not found or not in a requeueable state' })
})

void t.test('the 2.9 line has no queue', async (t) => {
  const runtime = await startRuntime(t)
  await call(runtime.url, 'POST', '/agents/a1/runs', form({ message: 'x', background: 'true' }))
  for (const path of ['/queue/jobs', '/queue/stats']) {
    const reply = await call(runtime.url, 'GET', path)
    t.equal(reply.status, 404)
    t.same(reply.body, { detail: 'Not Found' })
  }
})
