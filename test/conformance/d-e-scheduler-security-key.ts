/**
 * Checklist part D (internal scheduler token) and E (security-key mode), on the AgentOS line of the
 * test file (line.ts): 3.0's scheduler token no longer writes or deletes schedules (V3-AUTH-1).
 */
import t from 'tap'
import {
  forwarded,
  ids,
  ip,
  jConfig,
  jwt,
  refused,
  sConfig,
  upstreamHeader,
  withDatabase,
} from './fixtures.js'
import { lineRuntime, partLine, stackOnLine } from './line.js'

const line = partLine()
const runtime = await lineRuntime(t)
const J = await stackOnLine(
  t,
  runtime,
  jConfig({ internal_service_token: 'itok-scheduler-3e9a7c1f5b2d8e4a6c0f' }, withDatabase(t)),
)
const S = await stackOnLine(t, runtime, sConfig(withDatabase(t)))

void t.test(
  'AUTH-7 J + itok-scheduler-3e9a7c1f5b2d8e4a6c0f: GET /agents → 200; GET /sessions → 403ip(sessions:read); POST /service-accounts → 403ip(service_accounts:write)',
  async (t) => {
    const agents = await J.call('GET', '/agents', { token: 'itok-scheduler-3e9a7c1f5b2d8e4a6c0f' })
    forwarded(t, agents, 200, '/agents')
    t.same(ids(agents.body), ['a1', 'a2'])
    t.equal(upstreamHeader(agents, 'x-auth-user-id'), '__scheduler__')
    t.equal(upstreamHeader(agents, 'x-auth-kind'), 'scheduler')
    t.equal(upstreamHeader(agents, 'authorization'), undefined, 'the token is not forwarded')
    refused(
      t,
      await J.call('GET', '/sessions', { token: 'itok-scheduler-3e9a7c1f5b2d8e4a6c0f' }),
      403,
      ip('sessions:read'),
    )
    const mint = await J.call('POST', '/service-accounts', {
      token: 'itok-scheduler-3e9a7c1f5b2d8e4a6c0f',
      json: { name: 'int1', scopes: [{ scope: 'agents:run' }] },
    })
    refused(t, mint, 403, ip('service_accounts:write'))
  },
)

/** The schedule routes that change rows, and the scope each needs. */
const SCHEDULE_WRITES: [string, string, string][] = [
  ['POST', '/schedules', 'schedules:write'],
  ['PATCH', '/schedules/s1', 'schedules:write'],
  ['DELETE', '/schedules/s1', 'schedules:delete'],
  ['POST', '/schedules/s1/enable', 'schedules:write'],
  ['POST', '/schedules/s1/disable', 'schedules:write'],
  ['POST', '/schedules/s1/trigger', 'schedules:write'],
]
const SCHEDULER = { token: 'itok-scheduler-3e9a7c1f5b2d8e4a6c0f', json: {} }

if (line === '2.9') {
  void t.test(
    'AUTH-7 J + itok-scheduler-3e9a7c1f5b2d8e4a6c0f holds schedules:write and schedules:delete: every schedule write is authorized and forwarded',
    async (t) => {
      for (const [method, path] of SCHEDULE_WRITES) {
        forwarded(t, await J.call(method, path, SCHEDULER), 200, path)
      }
    },
  )
} else {
  void t.test(
    'V3-AUTH-1 J + itok-scheduler-3e9a7c1f5b2d8e4a6c0f: POST/PATCH/DELETE /schedules, enable, disable, trigger → 403ip(schedules:write | schedules:delete)',
    async (t) => {
      for (const [method, path, scope] of SCHEDULE_WRITES) {
        refused(t, await J.call(method, path, SCHEDULER), 403, ip(scope))
      }
    },
  )
}

void t.test(
  'AUTH-7 (V3-AUTH-1 keeps these) J + itok-scheduler-3e9a7c1f5b2d8e4a6c0f: GET /schedules → 200; POST /agents/a1/runs → 200',
  async (t) => {
    const listed = await J.call('GET', '/schedules', { token: SCHEDULER.token })
    forwarded(t, listed, 200, '/schedules')
    const run = await J.call('POST', '/agents/a1/runs', {
      token: SCHEDULER.token,
      form: { message: 'scheduled', stream: 'false' },
    })
    forwarded(t, run, 200, '/agents/a1/runs')
  },
)

void t.test(
  'AUTH-7 S + itok-scheduler-3e9a7c1f5b2d8e4a6c0f: GET /sessions → 200; mint with defaults → 403 "Cannot grant…"; mint agents:run → 201 as __scheduler__',
  async (t) => {
    forwarded(
      t,
      await S.call('GET', '/sessions', { token: 'itok-scheduler-3e9a7c1f5b2d8e4a6c0f' }),
      200,
      '/sessions',
    )
    const defaults = await S.call('POST', '/service-accounts', {
      token: 'itok-scheduler-3e9a7c1f5b2d8e4a6c0f',
      json: { name: 'int1' },
    })
    refused(t, defaults, 403, 'Cannot grant scope(s) you do not hold: sessions:read, config:read')
    const minted = await S.call('POST', '/service-accounts', {
      token: 'itok-scheduler-3e9a7c1f5b2d8e4a6c0f',
      json: { name: 'int2', scopes: [{ scope: 'agents:run' }] },
    })
    t.equal(minted.status, 201)
    t.match(minted.body, {
      name: 'int2',
      principal: 'sa:int2',
      user_id: '__scheduler__',
      created_by: '__scheduler__',
    })
    t.equal(minted.upstream, undefined, '/service-accounts is answered by the gateway')
  },
)

void t.test('AUTH-6 S: no credential → 401 "Authorization header required"', async (t) => {
  refused(t, await S.call('GET', '/agents'), 401, 'Authorization header required')
})

void t.test('AUTH-6 S: Bearer nope → 401 "Invalid authentication token"', async (t) => {
  refused(t, await S.call('GET', '/agents', { token: 'nope' }), 401, 'Invalid authentication token')
})

void t.test(
  'AUTH-6 S: "Authorization: root-key-5f0c8e2a9b7d4c1e6a3f8b0d" (no scheme) → 200; "Basic root-key-5f0c8e2a9b7d4c1e6a3f8b0d" → 401 "Invalid authentication token"',
  async (t) => {
    const bare = await S.call('GET', '/agents', {
      headers: { authorization: 'root-key-5f0c8e2a9b7d4c1e6a3f8b0d' },
    })
    forwarded(t, bare, 200, '/agents')
    const basic = await S.call('GET', '/agents', {
      headers: { authorization: 'Basic root-key-5f0c8e2a9b7d4c1e6a3f8b0d' },
    })
    refused(t, basic, 401, 'Invalid authentication token')
  },
)

void t.test(
  'AUTH-6 S: Bearer root-key-5f0c8e2a9b7d4c1e6a3f8b0d on GET /agents and GET /sessions → 200, no scopes, unfiltered',
  async (t) => {
    const agents = await S.call('GET', '/agents', { token: 'root-key-5f0c8e2a9b7d4c1e6a3f8b0d' })
    forwarded(t, agents, 200, '/agents')
    t.same(ids(agents.body), ['a1', 'a2'])
    t.equal(upstreamHeader(agents, 'x-auth-kind'), 'security_key')
    t.equal(upstreamHeader(agents, 'x-auth-scopes'), undefined, 'an unscoped root')
    t.equal(upstreamHeader(agents, 'authorization'), undefined, 'the key is not forwarded')
    forwarded(
      t,
      await S.call('GET', '/sessions', { token: 'root-key-5f0c8e2a9b7d4c1e6a3f8b0d' }),
      200,
      '/sessions',
    )
  },
)

void t.test('AUTH-6 S: any JWT → 401 "Invalid authentication token"', async (t) => {
  const token = await jwt(['agents:read', 'os:admin'])
  refused(t, await S.call('GET', '/agents', { token }), 401, 'Invalid authentication token')
})
