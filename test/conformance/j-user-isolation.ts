/**
 * Checklist part J: user isolation (JI = J with user_isolation on, unless noted), on the AgentOS
 * line of the test file (line.ts); 3.0 refuses an identity-less caller where 2.9 left it unscoped
 * (V3-ISO-1).
 */
import t from 'tap'
import {
  ADMIN,
  AGENTOS_ADMIN,
  forwarded,
  ip,
  jConfig,
  jwt,
  refused,
  type Stack,
} from './fixtures.js'
import { lineRuntime, partLine, stackOnLine } from './line.js'

const line = partLine()
const runtime = await lineRuntime(t)
const JI = await stackOnLine(t, runtime, jConfig({ user_isolation: true }))
const J = await stackOnLine(t, runtime, jConfig())

const userA = await jwt(
  ['sessions:read', 'sessions:write', 'memories:read', 'memories:write', 'learnings:read'],
  { sub: 'user-a' },
)
const userB = await jwt(
  ['sessions:read', 'agents:run', 'teams:run', 'workflows:run', 'memories:delete'],
  { sub: 'user-b' },
)
const admin = await jwt([ADMIN], { sub: 'the-admin' })

interface Session {
  session_id: string
  user_id: string | null
}
const sessionsOf = (body: unknown): Session[] => (body as { data?: Session[] }).data ?? []

/** user-a's own session, created through JI before the lines run. */
const created = await JI.call('POST', '/sessions?type=agent', {
  token: userA,
  json: { session_name: "A's session" },
})
if (created.status !== 201) throw new Error(`setup: POST /sessions answered ${created.status}`)
const sessionA = (created.body as Session).session_id

const list = (fixture: Stack, token: string, query: string) =>
  fixture.call('GET', `/sessions?${query}`, { token })

void t.test(
  "ISO-1 user-b GET /sessions?type=agent&user_id=user-a → 200 without user-a's sessions",
  async (t) => {
    const reply = await list(JI, userB, 'type=agent&user_id=user-a')
    forwarded(t, reply, 200, '/sessions')
    t.same(reply.upstream?.query.user_id, ['user-b'], 'the filter is pinned to the caller')
    t.same(
      sessionsOf(reply.body).filter((session) => session.user_id === 'user-a'),
      [],
    )
  },
)

void t.test(`ISO-1 user-b GET /sessions/{A's session}?type=agent → 404`, async (t) => {
  const reply = await JI.call('GET', `/sessions/${sessionA}?type=agent`, { token: userB })
  forwarded(t, reply, 404, `/sessions/${sessionA}`)
  t.equal(reply.detail, `Agent Session with id '${sessionA}' not found`)
  t.same(reply.upstream?.query.user_id, ['user-b'])
})

void t.test(
  "ISO-1 admin GET /sessions?type=agent includes user-a's; ?user_id=user-a filters to user-a",
  async (t) => {
    const all = await list(JI, admin, 'type=agent')
    forwarded(t, all, 200)
    t.equal(all.upstream?.query.user_id, undefined, 'an admin is never pinned')
    t.ok(sessionsOf(all.body).some((session) => session.session_id === sessionA))
    const filtered = await list(JI, admin, 'type=agent&user_id=user-a')
    t.same(filtered.upstream?.query.user_id, ['user-a'], "the admin's filter is honoured")
    const owners = new Set(sessionsOf(filtered.body).map((session) => session.user_id))
    t.same([...owners], ['user-a'])
  },
)

void t.test(
  'ISO-2 user-a POST /sessions?type=agent with body user_id "someone-else" → 201 user_id "user-a"',
  async (t) => {
    const reply = await JI.call('POST', '/sessions?type=agent', {
      token: userA,
      json: { session_name: 'mine', user_id: 'someone-else' },
    })
    forwarded(t, reply, 201, '/sessions')
    t.match(reply.body, { user_id: 'user-a', session_name: 'mine' })
    t.match(reply.upstream?.json, { user_id: 'user-a' }, 'the upstream saw only user-a')
  },
)

void t.test(
  "ISO-3 cancel: non-admin without session_id → 400; with user-a's session as user-b → forwarded pinned to user-b; admin → 200",
  async (t) => {
    const path = '/agents/a1/runs/r/cancel'
    refused(
      t,
      await JI.call('POST', path, { token: userB }),
      400,
      'session_id is required for this action',
    )
    const foreign = await JI.call('POST', `${path}?session_id=${sessionA}`, { token: userB })
    t.same(foreign.upstream?.query, { session_id: [sessionA], user_id: ['user-b'] })
    forwarded(t, await JI.call('POST', path, { token: admin }), 200, path)
  },
)

void t.test(
  "ISO-3 … with user-a's session as user-b → 404 Run not found",
  {
    skip: 'needs upstream ownership data: the demo runtime does not check run ownership on cancel; the gateway part (session_id forwarded with user_id pinned to user-b, which is what makes AgentOS answer 404) is asserted above',
  },
  () => undefined,
)

void t.test(
  'ISO-3 non-admin resume and continue without session_id → 400 (agents, teams, workflows)',
  async (t) => {
    for (const base of ['/agents/a1', '/teams/t1', '/workflows/w1']) {
      for (const action of ['resume', 'continue']) {
        const reply = await JI.call('POST', `${base}/runs/r/${action}`, {
          token: userB,
          form: { tools: '[]' },
        })
        refused(t, reply, 400, 'session_id is required for this action')
      }
    }
  },
)

void t.test(
  "ISO-1 J (isolation off): non-admin cancel without session_id → 200; user-b lists user-a's sessions",
  async (t) => {
    const cancel = await J.call('POST', '/agents/a1/runs/r/cancel', { token: userB })
    forwarded(t, cancel, 200, '/agents/a1/runs/r/cancel')
    const reply = await list(J, userB, 'type=agent&user_id=user-a')
    t.same(reply.upstream?.query.user_id, ['user-a'], 'not pinned')
    t.ok(sessionsOf(reply.body).some((session) => session.session_id === sessionA))
  },
)

void t.test(
  'ISO-3 GET /learnings?user_id=zzz as user-a → 403 "Cannot list learnings for another user"',
  async (t) => {
    const reply = await JI.call('GET', '/learnings?user_id=zzz', { token: userA })
    refused(t, reply, 403, 'Cannot list learnings for another user')
  },
)

void t.test(
  `RBAC-1 admin scope ${ADMIN}: JWT(${ADMIN}) sees every session; ${AGENTOS_ADMIN} is no admin`,
  async (t) => {
    const all = await list(JI, admin, 'type=agent')
    t.equal(all.upstream?.query.user_id, undefined)
    t.ok(sessionsOf(all.body).some((session) => session.session_id === sessionA))
    const pretender = await jwt([AGENTOS_ADMIN], { sub: 'pretender' })
    refused(t, await list(JI, pretender, 'type=agent'), 403, ip('sessions:read'))
    const reader = await jwt([AGENTOS_ADMIN, 'sessions:read'], { sub: 'pretender' })
    const pinned = await list(JI, reader, 'type=agent')
    t.same(pinned.upstream?.query.user_id, ['pretender'], 'pinned like any user')
    t.same(sessionsOf(pinned.body), [])
  },
)

void t.test(
  "ISO-2 user-b DELETE /memories of user-a's memory naming user-a → no effect; the admin's → 204, gone",
  async (t) => {
    const memory = await JI.call('POST', '/memories', {
      token: userA,
      json: { memory: 'likes tea' },
    })
    forwarded(t, memory, 200, '/memories')
    const id = (memory.body as { memory_id: string; user_id: string }).memory_id
    t.match(memory.body, { user_id: 'user-a' })
    const body = { memory_ids: [id], user_id: 'user-a' }
    const foreign = await JI.call('DELETE', '/memories', { token: userB, json: body })
    t.match(foreign.upstream?.json, { user_id: 'user-b' }, 'coerced to the caller')
    forwarded(t, await JI.call('GET', `/memories/${id}`, { token: admin }), 200)
    const byAdmin = await JI.call('DELETE', '/memories', { token: admin, json: body })
    forwarded(t, byAdmin, 204, '/memories')
    forwarded(t, await JI.call('GET', `/memories/${id}`, { token: admin }), 404)
  },
)

void t.test(
  'ISO-1 / V3-ISO-1 a JWT with scopes but no sub: 2.9 reads unscoped; 3.0 → 403 "Authenticated request is missing a user identity"; listings unaffected',
  async (t) => {
    const idless = await jwt(['sessions:read', 'agents:read', 'memories:read'], { sub: null })
    const sessions = await list(JI, idless, 'type=agent')
    const memories = await JI.call('GET', '/memories', { token: idless })
    if (line === '2.9') {
      forwarded(t, sessions, 200, '/sessions')
      t.equal(sessions.upstream?.query.user_id, undefined, 'not pinned: nobody to pin to')
      t.ok(sessionsOf(sessions.body).some((session) => session.session_id === sessionA))
      forwarded(t, memories, 200, '/memories')
    } else {
      refused(t, sessions, 403, 'Authenticated request is missing a user identity')
      refused(t, memories, 403, 'Authenticated request is missing a user identity')
    }
    forwarded(t, await JI.call('GET', '/agents', { token: idless }), 200, '/agents')
  },
)
