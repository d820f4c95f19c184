/**
 * V3-QUEUE-1: AgentOS 3.0's job queue routes (`GET /queue/jobs`, `GET /queue/jobs/{id}`,
 * `POST /queue/jobs/{id}/requeue`, `GET /queue/stats`) are for the admin scope whenever the
 * caller has an identity; an open AgentOS skips the check, so the gateway makes it. Through the
 * real gateway pinned to 3.0, against the demo runtime as an open 3.0.0a3 holding two users' jobs.
 */
import t, { type Test } from 'tap'
import {
  ADMIN,
  forwarded,
  grants,
  jConfig,
  jwt,
  K,
  mint,
  refused,
  sConfig,
  SCHEDULER_TOKEN,
  SECURITY_KEY,
  stack30,
  startRuntime30,
  type Stack,
} from './line-3.0.js'

const QUEUE_ADMIN = 'Job queue operations require an admin scope'

const runtime = await startRuntime30(t)
const J = await stack30(
  t,
  runtime,
  jConfig({ internal_service_token: SCHEDULER_TOKEN }, { service_accounts: { enabled: true } }),
)
const S = await stack30(t, runtime, sConfig())
// JWTs verified with the environment's key and authorization off (AUTH-8): no route scopes.
const unscoped = await stack30(
  t,
  runtime,
  { auth: { algorithm: 'HS256' }, service_accounts: { enabled: false } },
  { JWT_VERIFICATION_KEY: K },
)
const admin = await jwt([ADMIN], { sub: 'the-admin' })

interface Job {
  id: string
  run_id: string
  user_id: string | null
  payload: Record<string, unknown>
}

/** A background run of `user`'s, cancelled by the admin so that its job can be requeued. */
async function cancelledJobOf(user: string): Promise<string> {
  const token = await jwt(['agents:run'], { sub: user })
  const run = await J.call('POST', '/agents/a1/runs', {
    token,
    form: { message: `report for ${user}`, stream: 'false', background: 'true' },
  })
  if (run.status !== 200) throw new Error(`setup: run answered ${run.status} ${run.text}`)
  const runId = (run.body as { run_id: string }).run_id
  const cancel = await J.call('POST', `/agents/a1/runs/${runId}/cancel`, { token: admin })
  if (cancel.status !== 200) throw new Error(`setup: cancel answered ${cancel.status}`)
  const jobs = await J.call('GET', '/queue/jobs', { token: admin })
  const job = (jobs.body as { jobs: Job[] }).jobs.find((item) => item.run_id === runId)
  if (job === undefined) throw new Error('setup: no job for the background run')
  return job.id
}

const aliceJob = await cancelledJobOf('alice')
const bobJob = await cancelledJobOf('bob')

/** The four queue routes, on one job. */
function queueRoutes(job: string): [string, string][] {
  return [
    ['GET', '/queue/jobs'],
    ['GET', `/queue/jobs/${job}`],
    ['POST', `/queue/jobs/${job}/requeue`],
    ['GET', '/queue/stats'],
  ]
}

async function refusedEverywhere(t: Test, fixture: Stack, token: string): Promise<void> {
  for (const [method, path] of queueRoutes(aliceJob)) {
    refused(t, await fixture.call(method, path, { token }), 403, QUEUE_ADMIN)
  }
}

void t.test(
  'V3-QUEUE-1 JWTs without the admin scope → 403 "Job queue operations require an admin scope" on all four routes',
  async (t) => {
    const callers: [string, string][] = [
      ['no scopes claim', await jwt(undefined)],
      ['scopes []', await jwt([])],
      [
        'resource scopes',
        await jwt(['agents:read', 'agents:run', 'sessions:read', 'config:read', 'schedules:read']),
      ],
      ['agent_os:admin (not the admin scope configured)', await jwt(['agent_os:admin'])],
      ['no sub', await jwt(['agents:read'], { sub: null })],
    ]
    for (const [label, token] of callers) {
      await t.test(label, (t) => refusedEverywhere(t, J, token))
    }
  },
)

void t.test(
  'V3-QUEUE-1 service accounts without the admin scope (default or privileged scopes) → 403; one holding the admin scope passes',
  async (t) => {
    const byDefault = await mint(J, admin, { name: 'queue-default' })
    await refusedEverywhere(t, J, byDefault.token)
    const privileged = await mint(J, admin, {
      name: 'queue-writer',
      scopes: grants('agents:run', 'sessions:read', 'sessions:write', 'schedules:write'),
      allow_privileged_scopes: true,
    })
    await refusedEverywhere(t, J, privileged.token)
    const operator = await mint(J, admin, {
      name: 'queue-operator',
      scopes: grants(ADMIN),
      allow_privileged_scopes: true,
    })
    forwarded(t, await J.call('GET', '/queue/stats', { token: operator.token }), 200)
  },
)

void t.test(
  'V3-QUEUE-1 whatever authorization says: a JWT under AUTH-8 (no route scopes enforced) → 403 all the same',
  async (t) => {
    await refusedEverywhere(t, unscoped, await jwt([]))
    forwarded(t, await unscoped.call('GET', '/queue/stats', { token: admin }), 200)
  },
)

void t.test('V3-QUEUE-1 the scheduler token (an identity, no admin scope) → 403', async (t) => {
  await refusedEverywhere(t, J, SCHEDULER_TOKEN)
})

void t.test(
  'V3-QUEUE-1 no credential → 401 "Authorization header missing" (J), "Authorization header required" (S)',
  async (t) => {
    refused(t, await J.call('GET', '/queue/jobs'), 401, 'Authorization header missing')
    refused(t, await S.call('GET', '/queue/stats'), 401, 'Authorization header required')
  },
)

void t.test(
  'V3-QUEUE-1 the admin JWT reads every user’s jobs with their payloads, one job, requeues it and reads the stats',
  async (t) => {
    const list = await J.call('GET', '/queue/jobs', { token: admin })
    forwarded(t, list, 200, '/queue/jobs')
    const jobs = (list.body as { jobs: Job[] }).jobs
    t.same(jobs.map((job) => job.user_id).sort(), ['alice', 'bob'], 'both users’ jobs')
    t.match(jobs.find((job) => job.id === aliceJob)?.payload, { message: 'report for alice' })
    const one = await J.call('GET', `/queue/jobs/${aliceJob}`, { token: admin })
    forwarded(t, one, 200, `/queue/jobs/${aliceJob}`)
    t.match(one.body, { id: aliceJob, user_id: 'alice', status: 'cancelled' })
    const requeued = await J.call('POST', `/queue/jobs/${aliceJob}/requeue`, { token: admin })
    forwarded(t, requeued, 200, `/queue/jobs/${aliceJob}/requeue`)
    t.match(requeued.body, { id: aliceJob, status: 'queued' })
    const stats = await J.call('GET', '/queue/stats', { token: admin })
    forwarded(t, stats, 200, '/queue/stats')
    t.match(stats.body, { counts: { queued: 1, cancelled: 1 } })
  },
)

void t.test(
  'V3-QUEUE-1 the security key (an unscoped root: no identity to check) passes',
  async (t) => {
    for (const [method, path] of queueRoutes(bobJob)) {
      const reply = await S.call(method, path, { token: SECURITY_KEY })
      forwarded(t, reply, 200, path)
    }
    const bob = await S.call('GET', `/queue/jobs/${bobJob}`, { token: SECURITY_KEY })
    t.match(bob.body, { user_id: 'bob', status: 'queued' }, 'requeued by the security key')
  },
)
