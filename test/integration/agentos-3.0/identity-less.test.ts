/**
 * V3-ISO-1: under user isolation AgentOS 3.0 refuses an authenticated caller that is neither an
 * admin nor a service account and has no user id (a JWT without `sub`, or with an empty one) with
 * 403 `Authenticated request is missing a user identity` on every route whose handler scopes data
 * to the caller, after the route's scope check; 2.9 let it through unscoped. Listings, component
 * reads, `/config` and fork are not affected, nor are admins, the security key or any caller
 * without isolation. Through real gateways pinned to 3.0 against the demo runtime as an open
 * 3.0.0a3.
 */
import t from 'tap'
import {
  ADMIN,
  forwarded,
  ip,
  jConfig,
  jwt,
  MISSING_IDENTITY,
  refused,
  sConfig,
  SECURITY_KEY,
  stack30,
  startRuntime30,
} from './line-3.0.js'

const runtime = await startRuntime30(t)
const JI = await stack30(t, runtime, jConfig({ user_isolation: true }))
const J = await stack30(t, runtime, jConfig())
const S = await stack30(t, runtime, sConfig())

const SCOPES = [
  'agents:read',
  'agents:run',
  'teams:read',
  'teams:run',
  'workflows:read',
  'workflows:run',
  'sessions:read',
  'sessions:write',
  'sessions:delete',
  'memories:read',
  'memories:write',
  'schedules:read',
  'schedules:write',
  'traces:read',
  'metrics:read',
  'config:read',
  'components:read',
  'knowledge:write',
  'learnings:read',
]
const idless = await jwt(SCOPES, { sub: null })
const emptySub = await jwt(SCOPES, { sub: '' })
const alice = await jwt(SCOPES, { sub: 'alice' })
const idlessAdmin = await jwt([ADMIN], { sub: null })

const created = await JI.call('POST', '/sessions?type=agent', {
  token: alice,
  json: { session_name: 'alice’s' },
})
if (created.status !== 201) throw new Error(`setup: POST /sessions answered ${created.status}`)
const session = (created.body as { session_id: string }).session_id

const run = { message: 'hi', stream: 'false' }
/** Method, path and body of routes whose 3.0 handlers scope data to the caller. */
const SCOPED_ROUTES: [string, string, { json?: unknown; form?: Record<string, string> }][] = [
  ['GET', '/sessions?type=agent', {}],
  ['GET', `/sessions/${session}?type=agent`, {}],
  ['POST', '/sessions?type=agent', { json: { session_name: 'x' } }],
  ['DELETE', `/sessions/${session}?type=agent`, {}],
  ['GET', '/memories', {}],
  ['POST', '/memories', { json: { memory: 'likes tea' } }],
  ['GET', '/memory_topics', {}],
  ['POST', '/agents/a1/runs', { form: run }],
  ['POST', '/teams/t1/runs', { form: run }],
  ['POST', '/workflows/w1/runs', { form: run }],
  ['POST', `/agents/a1/runs/r1/cancel?session_id=${session}`, {}],
  ['GET', '/schedules', {}],
  ['GET', '/schedules/s1', {}],
  [
    'POST',
    '/schedules',
    { json: { name: 'n', cron_expr: '0 3 * * *', endpoint: '/agents/a1/runs' } },
  ],
  ['GET', '/traces', {}],
  ['GET', '/metrics', {}],
  ['GET', '/components', {}],
  ['GET', '/components/x', {}],
  ['PATCH', '/knowledge/content/c1', { json: { name: 'renamed' } }],
  ['GET', '/learnings', {}],
]

void t.test(
  `V3-ISO-1 JI: a JWT with scopes but no sub → 403 "${MISSING_IDENTITY}" on sessions, memories, runs, schedules, traces, metrics, components, knowledge writes, learnings`,
  async (t) => {
    for (const [method, path, body] of SCOPED_ROUTES) {
      const reply = await JI.call(method, path, { token: idless, ...body })
      refused(t, reply, 403, MISSING_IDENTITY)
    }
  },
)

void t.test('V3-ISO-1 JI: an empty sub is no identity either', async (t) => {
  for (const [method, path, body] of SCOPED_ROUTES) {
    refused(t, await JI.call(method, path, { token: emptySub, ...body }), 403, MISSING_IDENTITY)
  }
})

void t.test(
  'V3-ISO-1 JI: the route scope is checked first: without sessions:read it is 403ip(sessions:read)',
  async (t) => {
    const token = await jwt(['agents:read'], { sub: null })
    refused(t, await JI.call('GET', '/sessions', { token }), 403, ip('sessions:read'))
    refused(t, await JI.call('GET', '/schedules', { token }), 403, ip('schedules:read'))
  },
)

void t.test(
  'V3-ISO-1 JI: routes whose handlers scope nothing pass the same token: listings, reads, /config, fork',
  async (t) => {
    for (const path of ['/agents', '/teams', '/workflows', '/agents/a1', '/config']) {
      const reply = await JI.call('GET', path, { token: idless })
      forwarded(t, reply, 200, path)
    }
    const fork = await JI.call('POST', `/agents/a1/sessions/${session}/fork`, { token: idless })
    t.not(fork.status, 403)
    t.equal(fork.upstream?.path, `/agents/a1/sessions/${session}/fork`, 'forwarded')
  },
)

void t.test(
  'V3-ISO-1 JI: a user with a sub is scoped to it; an admin without sub is never refused nor scoped',
  async (t) => {
    const own = await JI.call('GET', '/sessions?type=agent', { token: alice })
    forwarded(t, own, 200, '/sessions')
    t.same(own.upstream?.query.user_id, ['alice'])
    const all = await JI.call('GET', '/sessions?type=agent', { token: idlessAdmin })
    forwarded(t, all, 200, '/sessions')
    t.equal(all.upstream?.query.user_id, undefined)
    forwarded(t, await JI.call('GET', '/schedules', { token: idlessAdmin }), 200, '/schedules')
    const adminRun = await JI.call('POST', '/agents/a1/runs', { token: idlessAdmin, form: run })
    forwarded(t, adminRun, 200, '/agents/a1/runs')
  },
)

void t.test(
  'V3-ISO-1 without isolation (J) the same identity-less JWT reads and runs unscoped; the security key (S) is never refused',
  async (t) => {
    const sessions = await J.call('GET', '/sessions?type=agent', { token: idless })
    forwarded(t, sessions, 200, '/sessions')
    t.equal(sessions.upstream?.query.user_id, undefined, 'unscoped')
    forwarded(t, await J.call('POST', '/agents/a1/runs', { token: idless, form: run }), 200)
    forwarded(t, await J.call('GET', '/memories', { token: idless }), 200, '/memories')
    const key = await S.call('GET', '/sessions?type=agent', { token: SECURITY_KEY })
    forwarded(t, key, 200, '/sessions')
  },
)
