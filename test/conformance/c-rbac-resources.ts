/**
 * Checklist part C, lines 44–58: RBAC on JWTs for listings, reads and runs (J), on the AgentOS line
 * of the test file (line.ts): the same answers on 2.9 and 3.0.
 */
import t, { type Test } from 'tap'
import { ADMIN, forwarded, ids, ip, jConfig, jwt, refused } from './fixtures.js'
import { lineRuntime, stackOnLine } from './line.js'

const runtime = await lineRuntime(t)
const J = await stackOnLine(t, runtime, jConfig())
const get = async (path: string, scopes: unknown) =>
  J.call('GET', path, { token: await jwt(scopes) })
const run = async (path: string, scopes: unknown) =>
  J.call('POST', path, { token: await jwt(scopes), form: { message: 'hi', stream: 'false' } })

void t.test('RBAC-2 GET /agents JWT(agents:read) → 200, every agent', async (t) => {
  const reply = await get('/agents', ['agents:read'])
  forwarded(t, reply, 200, '/agents')
  t.same(ids(reply.body), ['a1', 'a2'])
})

void t.test('RBAC-2 GET /agents JWT(sessions:read) → 403ip(agents:read)', async (t) => {
  refused(t, await get('/agents', ['sessions:read']), 403, ip('agents:read'))
})

void t.test('RBAC-2 GET /agents JWT(teams:read) → 403ip(agents:read)', async (t) => {
  refused(t, await get('/agents', ['teams:read']), 403, ip('agents:read'))
})

void t.test(`RBAC-1 JWT(${ADMIN}): GET /agents → all; POST /agents/a1/runs → 200`, async (t) => {
  const listing = await get('/agents', [ADMIN])
  forwarded(t, listing, 200)
  t.same(ids(listing.body), ['a1', 'a2'])
  const reply = await run('/agents/a1/runs', [ADMIN])
  forwarded(t, reply, 200, '/agents/a1/runs')
  t.same(reply.upstream?.form?.user_id, ['alice'], "the run is the admin's own (ISO-2)")
})

void t.test('RBAC-2 GET /agents JWT(agents:*:read) → 200, every agent', async (t) => {
  const reply = await get('/agents', ['agents:*:read'])
  forwarded(t, reply, 200)
  t.same(ids(reply.body), ['a1', 'a2'])
})

void t.test(
  'RBAC-2 GET /agents JWT(agents:a1:read) → 200 [a1], filtered by the gateway',
  async (t) => {
    const reply = await get('/agents', ['agents:a1:read'])
    forwarded(t, reply, 200)
    t.same(ids(reply.body), ['a1'])
  },
)

void t.test('RBAC-2 GET /agents JWT(agents:a1:read, agents:a2:read) → 200 [a1, a2]', async (t) => {
  const reply = await get('/agents', ['agents:a1:read', 'agents:a2:read'])
  forwarded(t, reply, 200)
  t.same(ids(reply.body), ['a1', 'a2'])
})

void t.test(
  'RBAC-2 GET /agents JWT(agents:run), JWT(agents:a1:run), JWT(agents:*) → 403',
  async (t) => {
    for (const scope of ['agents:run', 'agents:a1:run', 'agents:*']) {
      refused(t, await get('/agents', [scope]), 403, ip('agents:read'))
    }
  },
)

void t.test(
  'JWT-10 GET /agents: no scopes claim → 403; "agents:read" as a string → 200; "agents:read teams:read" → 200 []',
  async (t) => {
    refused(t, await get('/agents', undefined), 403, ip('agents:read'))
    const single = await get('/agents', 'agents:read')
    forwarded(t, single, 200)
    t.same(ids(single.body), ['a1', 'a2'])
    const unsplit = await get('/agents', 'agents:read teams:read')
    forwarded(t, unsplit, 200)
    t.same(unsplit.body, [], 'one per-resource scope of the id "read teams": nothing listed')
  },
)

void t.test('RBAC-2 JWT(agents:read): GET /teams → 403, GET /workflows → 403', async (t) => {
  refused(t, await get('/teams', ['agents:read']), 403, ip('teams:read'))
  refused(t, await get('/workflows', ['agents:read']), 403, ip('workflows:read'))
})

void t.test(
  'RBAC-2 JWT(agents:a1:read, teams:read, workflows:*:read): /agents [a1], /teams all, /workflows all',
  async (t) => {
    const scopes = ['agents:a1:read', 'teams:read', 'workflows:*:read']
    t.same(ids((await get('/agents', scopes)).body), ['a1'])
    t.same(ids((await get('/teams', scopes)).body), ['t1'])
    t.same(ids((await get('/workflows', scopes)).body), ['w1'])
  },
)

async function line55(t: Test, family: string, id: string, other: string) {
  const item = `/${family}/${id}`
  forwarded(t, await get(item, [`${family}:${id}:read`]), 200, item)
  refused(t, await get(item, [`${family}:${other}:read`]), 403, ip(`${family}:read`))
  refused(t, await get(item, []), 403, ip(`${family}:read`))
}

async function line56(t: Test, family: string, id: string) {
  const item = `/${family}/${id}`
  forwarded(t, await get(item, [`${family}:read`]), 200, item)
  forwarded(t, await get(item, [`${family}:*:read`]), 200, item)
}

async function line57(t: Test, family: string, id: string, other: string) {
  const runs = `/${family}/${id}/runs`
  for (const scope of [`${family}:${id}:run`, `${family}:run`, `${family}:*:run`]) {
    const reply = await run(runs, [scope])
    forwarded(t, reply, 200, runs)
    t.same(reply.upstream?.form?.user_id, ['alice'], `${scope}: the run is the caller's`)
  }
  refused(t, await run(runs, [`${family}:${id}:read`]), 403, ip(`${family}:run`))
  refused(t, await run(runs, [`${family}:${other}:run`]), 403, ip(`${family}:run`))
}

void t.test('SCOPE-3 GET /agents/a1: agents:a1:read → 200; agents:a2:read → 403ip; [] → 403', (t) =>
  line55(t, 'agents', 'a1', 'a2'),
)

void t.test('SCOPE-3 GET /agents/a1: agents:read → 200; agents:*:read → 200', (t) =>
  line56(t, 'agents', 'a1'),
)

void t.test(
  'SCOPE-3 POST /agents/a1/runs: a1:run, run, *:run → 200 (user_id the caller); a1:read, a2:run → 403ip(agents:run)',
  (t) => line57(t, 'agents', 'a1', 'a2'),
)

void t.test('SCOPE-3 teams (t1) and workflows (w1) mirror 55–57', async (t) => {
  for (const [family, id, other] of [
    ['teams', 't1', 't2'],
    ['workflows', 'w1', 'w2'],
  ] as const) {
    await t.test(`${family} 55`, (t) => line55(t, family, id, other))
    await t.test(`${family} 56`, (t) => line56(t, family, id))
    await t.test(`${family} 57`, (t) => line57(t, family, id, other))
  }
})
