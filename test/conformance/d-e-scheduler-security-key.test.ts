/** Checklist part D (internal scheduler token) and E (security-key mode). */
import t from 'tap'
import { startRuntime } from '../helpers/runtime.js'
import {
  forwarded,
  ids,
  ip,
  jConfig,
  jwt,
  refused,
  sConfig,
  stack,
  upstreamHeader,
  withDatabase,
} from './fixtures.js'

const runtime = await startRuntime(t)
const J = await stack(
  t,
  runtime,
  jConfig({ internal_service_token: 'itok-scheduler-3e9a7c1f5b2d8e4a6c0f' }, withDatabase(t)),
)
const S = await stack(t, runtime, sConfig(withDatabase(t)))

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
