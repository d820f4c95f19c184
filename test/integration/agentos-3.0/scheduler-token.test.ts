/**
 * V3-AUTH-1: AgentOS 3.0's internal scheduler token lost `schedules:write` and
 * `schedules:delete` (a leaked token must not create or repoint schedule rows); it still reads
 * schedules and starts runs. Through the real gateway pinned to 3.0 (JWT mode with the token
 * configured) against the demo runtime as an open 3.0.0a3.
 */
import t from 'tap'
import {
  ADMIN,
  forwarded,
  ip,
  jConfig,
  jwt,
  refused,
  SCHEDULER_TOKEN,
  stack30,
  startRuntime30,
} from './line-3.0.js'

const runtime = await startRuntime30(t)
const J = await stack30(t, runtime, jConfig({ internal_service_token: SCHEDULER_TOKEN }))
const admin = await jwt([ADMIN], { sub: 'the-admin' })

interface Schedule {
  id: string
  name: string
  endpoint: string
  enabled: boolean
}

const created = await J.call('POST', '/schedules', {
  token: admin,
  json: {
    name: 'nightly',
    cron_expr: '0 3 * * *',
    endpoint: '/agents/a1/runs',
    payload: { message: 'nightly report' },
  },
})
if (created.status !== 201) throw new Error(`setup: POST /schedules answered ${created.status}`)
const nightly = (created.body as Schedule).id

const asScheduler = { token: SCHEDULER_TOKEN }

void t.test(
  'V3-AUTH-1 the scheduler token creates no schedule: POST /schedules → 403ip(schedules:write)',
  async (t) => {
    const reply = await J.call('POST', '/schedules', {
      ...asScheduler,
      json: { name: 'sneaky', cron_expr: '* * * * *', endpoint: '/config', method: 'GET' },
    })
    refused(t, reply, 403, ip('schedules:write'))
  },
)

void t.test(
  'V3-AUTH-1 nor changes one: PATCH, enable, disable, trigger → 403ip(schedules:write); DELETE → 403ip(schedules:delete); the row is untouched',
  async (t) => {
    const repoint = await J.call('PATCH', `/schedules/${nightly}`, {
      ...asScheduler,
      json: { endpoint: '/sessions/s1', method: 'DELETE' },
    })
    refused(t, repoint, 403, ip('schedules:write'))
    for (const action of ['enable', 'disable', 'trigger']) {
      const reply = await J.call('POST', `/schedules/${nightly}/${action}`, asScheduler)
      refused(t, reply, 403, ip('schedules:write'))
    }
    const removal = await J.call('DELETE', `/schedules/${nightly}`, asScheduler)
    refused(t, removal, 403, ip('schedules:delete'))
    const row = await J.call('GET', `/schedules/${nightly}`, { token: admin })
    t.match(row.body, { id: nightly, endpoint: '/agents/a1/runs', enabled: true })
  },
)

void t.test(
  'V3-AUTH-1 it still reads schedules and their runs (schedules:read) → 200',
  async (t) => {
    const list = await J.call('GET', '/schedules', asScheduler)
    forwarded(t, list, 200, '/schedules')
    t.same(
      (list.body as { data: Schedule[] }).data.map((schedule) => schedule.name),
      ['nightly'],
    )
    forwarded(t, await J.call('GET', `/schedules/${nightly}`, asScheduler), 200)
    forwarded(t, await J.call('GET', `/schedules/${nightly}/runs`, asScheduler), 200)
  },
)

void t.test(
  'V3-AUTH-1 it still runs agents, teams and workflows and reads them (agents:read, …:run) → 200',
  async (t) => {
    for (const path of ['/agents/a1/runs', '/teams/t1/runs', '/workflows/w1/runs']) {
      const reply = await J.call('POST', path, {
        ...asScheduler,
        form: { message: 'scheduled', stream: 'false' },
      })
      forwarded(t, reply, 200, path)
      t.equal(reply.upstream?.headers['x-auth-kind'], 'scheduler')
    }
    forwarded(t, await J.call('GET', '/agents/a1', asScheduler), 200, '/agents/a1')
    refused(t, await J.call('GET', '/sessions', asScheduler), 403, ip('sessions:read'))
  },
)
