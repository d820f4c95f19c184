/**
 * Service accounts and the scheduler on A2A and AG-UI through an open upstream
 * that, as AgentOS 2.9.0 does, refuses a client-supplied reserved principal on those routes. They
 * run under their interface alias `__portcullis__:<principal>`, which nobody else can claim, and
 * can read back what they ran (docs/agentos-compatibility.md A2A-1 to A2A-4).
 */
import t from 'tap'
import { onSuiteLine } from '../../helpers/suite-line.js'
import {
  a2aTaskUser,
  aguiRunUser,
  ADMIN,
  jConfig,
  oConfig,
  jwt,
  mint,
  seed,
  sessionUser,
  stack,
  withDatabase,
  type Reply,
} from './helpers.js'

const RESERVED = 'Client-supplied user_id may not claim a reserved principal'
const AGUI = { agui: { endpoints: [{ prefix: '', bound: 'agent' }] } }
const J = await stack(t, jConfig({}, { interfaces: AGUI, ...withDatabase(t) }))
const O = await stack(t, oConfig({ ...withDatabase(t), interfaces: AGUI }))
const S = await stack(t, {
  auth: {
    security_key: 'root-key-5f0c8e2a9b7d4c1e6a3f8b0d',
    internal_service_token: 'scheduler-token-6d0a4e8c2f7b1d5a9e3c',
  },
  service_accounts: { enabled: false },
  interfaces: AGUI,
})
const admin = await jwt([ADMIN], { sub: 'root' })
const SCOPES = ['agents:run', 'agents:read', 'teams:run', 'workflows:run', 'sessions:read']

// The request body A2AClient (a2a-sdk, JSON-RPC transport) sends for message/send.
function send(text: string, contextId?: string) {
  return {
    id: 'c2a4f0a2-3b1e-4b7e-9d43-0f1a3c2b5e61',
    jsonrpc: '2.0',
    method: 'message/send',
    params: {
      message: {
        kind: 'message',
        messageId: '6f1e2d3c-4b5a-4978-8f6e-5d4c3b2a1908',
        parts: [{ kind: 'text', text }],
        role: 'user',
        ...(contextId === undefined ? {} : { contextId }),
      },
    },
  }
}

const taskUser = a2aTaskUser
const contextOf = (reply: Reply) =>
  (reply.body as { result: { contextId: string } }).result.contextId
const upstreamHeader = (reply: Reply, name: string) => reply.upstream?.headers[name]

void t.test('A2A-1/2: every A2A message route works for a service account', async (t) => {
  const account = await mint(J, admin, 'a2a-bot', SCOPES)
  const alias = '__portcullis__:sa:a2a-bot'
  const routes = [
    '/a2a/agents/a1/v1/message:send',
    '/a2a/agents/a1/v1/message:stream',
    '/a2a/teams/t1/v1/message:send',
    '/a2a/teams/t1/v1/message:stream',
    '/a2a/workflows/w1/v1/message:send',
    '/a2a/workflows/w1/v1/message:stream',
  ]
  for (const path of routes) {
    const reply = await J.call('POST', path, { token: account.token, json: send('hi') })
    t.equal(reply.status, 200, path)
    t.notMatch(reply.text, RESERVED, `${path}: never the upstream's 403`)
    t.equal(upstreamHeader(reply, 'x-user-id'), alias, `${path}: X-User-ID is the alias`)
    t.equal(upstreamHeader(reply, 'x-auth-user-id'), 'sa:a2a-bot', `${path}: the principal`)
    if (path.endsWith(':send')) t.equal(taskUser(reply), alias, `${path}: attributed to the alias`)
    else {
      const contextId = /"contextId":"([^"]+)"/.exec(reply.text)?.[1] ?? ''
      const family = path.split('/')[2] as 'agents' | 'teams' | 'workflows'
      t.equal(await sessionUser(J, family, contextId), alias, `${path}: streamed run of the alias`)
    }
  }
  const deprecated = await J.call('POST', '/a2a/message/send', {
    token: account.token,
    json: send('hi'),
    headers: { 'x-agent-id': 't1' },
  })
  t.same(
    [deprecated.status, taskUser(deprecated)],
    // AgentOS 3.0 removed the route (V3-A2A-1).
    onSuiteLine({ '2.9': [200, alias], '3.0': [404, undefined] }),
    'the deprecated dispatch',
  )
  const spoofed = await J.call('POST', '/a2a/agents/a1/v1/message:send', {
    token: account.token,
    json: {
      ...send('hi'),
      params: { message: { ...send('hi').params.message, metadata: { userId: 'victim' } } },
    },
    headers: { 'x-user-id': 'victim' },
  })
  t.equal(taskUser(spoofed), alias, 'client copies are replaced')
  t.match(spoofed.upstream?.json, { params: { message: { metadata: { userId: alias } } } })
})

void t.test('A2A-1/2: AG-UI runs a service account as its alias', async (t) => {
  const account = await mint(J, admin, 'agui-bot', ['agents:run'])
  const reply = await J.call('POST', '/agui', {
    token: account.token,
    json: {
      threadId: 'th-1',
      messages: [{ role: 'user', content: 'hi' }],
      forwardedProps: { user_id: 'x' },
    },
  })
  t.equal(reply.status, 200)
  t.equal(await aguiRunUser(J, reply), '__portcullis__:sa:agui-bot')
  t.match(reply.upstream?.json, { forwardedProps: { user_id: '__portcullis__:sa:agui-bot' } })
})

void t.test('A2A-3: what a service account ran over A2A, it can read back', async (t) => {
  const account = await mint(J, admin, 'reader-bot', SCOPES)
  const other = await mint(J, admin, 'other-bot', SCOPES)
  const alias = '__portcullis__:sa:reader-bot'
  const started = await J.call('POST', '/a2a/agents/a1/v1/message:send', {
    token: account.token,
    json: send('remember me'),
  })
  const contextId = contextOf(started)
  const id = (started.body as { result: { id: string } }).result.id
  const taskGet = (token: string) =>
    J.call('POST', '/a2a/agents/a1/v1/tasks:get', {
      token,
      json: { jsonrpc: '2.0', id: 2, method: 'tasks/get', params: { id, contextId } },
    })
  t.equal((await taskGet(account.token)).status, 200, 'tasks:get finds its own session')
  t.equal((await taskGet(other.token)).status, 404, 'another account does not')
  const sessionIds = (reply: Reply) =>
    ((reply.body as { data?: { session_id: string }[] }).data ?? []).map((s) => s.session_id)
  const pinned = await J.call('GET', '/sessions?type=agent', { token: account.token })
  t.equal(pinned.upstream?.query['user_id']?.[0], 'sa:reader-bot', 'REST reads stay pinned to sa:')
  t.notOk(sessionIds(pinned).includes(contextId), 'the alias is a different user id upstream')
  const byAlias = await J.call('GET', `/sessions?type=agent&user_id=${encodeURIComponent(alias)}`, {
    token: account.token,
  })
  t.equal(byAlias.upstream?.query['user_id']?.[0], alias, 'its own alias may be named')
  t.ok(sessionIds(byAlias).includes(contextId), 'and lists what it ran over A2A')
  const foreign = await J.call('GET', `/sessions?type=agent&user_id=${encodeURIComponent(alias)}`, {
    token: other.token,
  })
  t.equal(foreign.upstream?.query['user_id']?.[0], 'sa:other-bot', "another's alias is pinned away")
  t.notOk(sessionIds(foreign).includes(contextId))
  const run = await J.call('POST', '/agents/a1/runs', {
    token: account.token,
    raw: 'message=rest&user_id=x',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  })
  t.equal(run.upstream?.form?.['user_id']?.[0], 'sa:reader-bot', 'REST runs stay sa:<name>')
})

void t.test('A2A-4: nobody else can claim an alias', async (t) => {
  const forged = await jwt(['agents:run', 'sessions:read'], { sub: '__portcullis__:sa:reader-bot' })
  const refused = await J.call('GET', '/sessions?type=agent', { token: forged })
  t.same([refused.status, refused.detail], [401, 'Invalid token subject'], 'a JWT subject')
  const anonymous = await O.call('POST', '/a2a/agents/a1/v1/message:send', {
    json: send('hi'),
    headers: { 'x-user-id': '__portcullis__:sa:bot' },
  })
  t.same([anonymous.status, anonymous.detail, anonymous.upstream], [403, RESERVED, undefined])
  const agui = await O.call('POST', '/agui', {
    json: { messages: [], forwarded_props: { user_id: '__portcullis__:__scheduler__' } },
  })
  t.same([agui.status, agui.detail], [403, RESERVED], 'AG-UI forwarded_props')
  const rest = await O.call('GET', '/sessions?type=agent', {
    headers: { 'x-user-id': '__portcullis__:sa:bot' },
  })
  t.same([rest.status, rest.detail], [403, RESERVED], 'X-User-ID on any route')
})

void t.test('A2A-2 on an open gateway: a verified token still runs as its alias', async (t) => {
  const account = await seed(O, 'open-bot', ['agents:run'])
  const reply = await O.call('POST', '/a2a/agents/a1/v1/message:send', {
    token: account.token,
    json: send('hi'),
  })
  t.same([reply.status, taskUser(reply)], [200, '__portcullis__:sa:open-bot'])
})

void t.test('A2A-2: the scheduler runs as __portcullis__:__scheduler__', async (t) => {
  const a2a = await S.call('POST', '/a2a/agents/a1/v1/message:send', {
    token: 'scheduler-token-6d0a4e8c2f7b1d5a9e3c',
    json: send('tick'),
  })
  t.same([a2a.status, taskUser(a2a)], [200, '__portcullis__:__scheduler__'])
  const agui = await S.call('POST', '/agui', {
    token: 'scheduler-token-6d0a4e8c2f7b1d5a9e3c',
    json: { messages: [] },
  })
  t.equal(agui.status, 200)
  t.equal(await aguiRunUser(S, agui), '__portcullis__:__scheduler__')
})
