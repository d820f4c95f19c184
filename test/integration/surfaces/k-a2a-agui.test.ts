/** Checklist K (162–173): A2A and AG-UI through the gateway (authorization on). */
import t from 'tap'
import { onSuiteLine } from '../../helpers/suite-line.js'
import {
  a2aTaskUser,
  aguiRunUser,
  ADMIN,
  ip,
  jConfig,
  oConfig,
  jwt,
  stack,
  withDatabase,
} from './helpers.js'

const RESERVED = 'Client-supplied user_id may not claim a reserved principal'
const AGUI = {
  agui: {
    endpoints: [
      { prefix: '', bound: 'agent' },
      { prefix: '/chat/public', bound: 'agent' },
      { prefix: '/team', bound: 'team' },
    ],
  },
}

const J = await stack(t, jConfig({}, { interfaces: AGUI }))
const JI = await stack(t, jConfig({ user_isolation: true }))
const PROTOCOL = await stack(t, jConfig({}, { interfaces: { a2a: { prefix: '/protocol' } } }))
const ROOT = await stack(t, jConfig({}, { interfaces: { a2a: { prefix: '' } } }))
const O = await stack(t, oConfig({ ...withDatabase(t), interfaces: AGUI }))

function send(
  text: string,
  extra: { contextId?: string; metadata?: Record<string, unknown> } = {},
) {
  const message: Record<string, unknown> = {
    kind: 'message',
    messageId: 'm1',
    role: 'user',
    parts: [{ kind: 'text', text }],
  }
  if (extra.contextId !== undefined) message.contextId = extra.contextId
  if (extra.metadata !== undefined) message.metadata = extra.metadata
  return { jsonrpc: '2.0', id: 1, method: 'message/send', params: { message } }
}

const taskUser = a2aTaskUser

/** AgentOS 3.0 removed the deprecated dispatch: an authenticated caller gets its 404 (V3-A2A-1). */
const REMOVED = [404, 'Not Found']

const CARD = '/a2a/agents/a1/.well-known/agent-card.json'
const SEND = '/a2a/agents/a1/v1/message:send'

void t.test('162 agent card: 401 without a credential, 200 with agents:read', async (t) => {
  t.equal((await J.call('GET', CARD)).status, 401)
  const token = await jwt(['agents:read', 'agents:run'])
  t.equal((await J.call('GET', CARD, { token })).status, 200)
})

void t.test('163 message:send without a credential: 401, even with no body', async (t) => {
  t.equal((await J.call('POST', SEND)).status, 401)
  t.equal((await J.call('POST', SEND, { json: send('hi') })).status, 401)
})

void t.test('164 JWT(config:read): send, stream and the deprecated route are 403', async (t) => {
  const token = await jwt(['config:read'])
  const sendReply = await J.call('POST', SEND, { token, json: send('hi') })
  t.same([sendReply.status, sendReply.detail], [403, ip('agents:run')])
  t.equal(
    (await J.call('POST', '/a2a/agents/a1/v1/message:stream', { token, json: send('hi') })).status,
    403,
  )
  const deprecated = await J.call('POST', '/a2a/message/send', {
    token,
    json: send('hi'),
    headers: { 'x-agent-id': 'a1' },
  })
  t.same(
    [deprecated.status, deprecated.detail],
    onSuiteLine({ '2.9': [403, ip('agents:run')], '3.0': REMOVED }),
  )
})

void t.test('165 read and run are separate', async (t) => {
  const run = await jwt(['agents:run'])
  t.equal((await J.call('GET', CARD, { token: run })).status, 403, 'card needs read')
  const tasksGet = await J.call('POST', '/a2a/agents/a1/v1/tasks:get', { token: run, json: {} })
  t.same([tasksGet.status, tasksGet.detail], [403, ip('agents:read')])
  const read = await jwt(['agents:read'])
  const cancel = await J.call('POST', '/a2a/agents/a1/v1/tasks:cancel', { token: read, json: {} })
  t.same([cancel.status, cancel.detail], [403, ip('agents:run')])
})

void t.test('166 X-User-ID and metadata.userId become the caller', async (t) => {
  const token = await jwt(['agents:run'], { sub: 'user-1' })
  const header = await J.call('POST', SEND, {
    token,
    json: send('hi'),
    headers: { 'x-user-id': 'victim' },
  })
  t.equal(header.status, 200)
  t.equal(taskUser(header), 'user-1')
  const metadata = await J.call('POST', SEND, {
    token,
    json: send('hi', { metadata: { userId: 'victim', other: 1 } }),
  })
  t.equal(taskUser(metadata), 'user-1')
  t.match(metadata.upstream?.json, {
    params: { message: { metadata: { userId: 'user-1', other: 1 } } },
  })
})

void t.test('167 O: a reserved principal claimed by the client is 403', async (t) => {
  for (const value of ['sa:evil', '__scheduler__', '__oauth__:x']) {
    const reply = await O.call('POST', SEND, { json: send('hi'), headers: { 'x-user-id': value } })
    t.same([reply.status, reply.detail], [403, RESERVED], `X-User-ID: ${value}`)
  }
  const metadata = await O.call('POST', SEND, {
    json: send('hi', { metadata: { userId: 'sa:evil' } }),
  })
  t.same([metadata.status, metadata.detail], [403, RESERVED], 'metadata.userId')
  t.equal(metadata.upstream, undefined)
  const honest = await O.call('POST', SEND, {
    json: send('hi'),
    headers: { 'x-user-id': 'user-456' },
  })
  t.same([honest.status, taskUser(honest)], [200, 'user-456'])
})

void t.test('168 custom prefix: global grants only; root prefix: per-resource', async (t) => {
  const path = '/protocol/agents/a1/v1/message:send'
  const config = await jwt(['config:read'])
  t.equal((await PROTOCOL.call('POST', path, { token: config, json: send('hi') })).status, 403)
  const run = await jwt(['agents:run'])
  t.equal((await PROTOCOL.call('POST', path, { token: run, json: send('hi') })).status, 200)
  const specific = await jwt(['agents:a1:run'])
  const global = await PROTOCOL.call('POST', path, { token: specific, json: send('hi') })
  t.same([global.status, global.detail], [403, ip('agents:run')], 'agents:a1:run is not enough')
  t.equal(
    (await PROTOCOL.call('POST', SEND, { token: config, json: send('hi') })).status,
    200,
    '/a2a unmapped',
  )

  const rootPath = '/agents/a1/v1/message:send'
  t.equal((await ROOT.call('POST', rootPath, { token: config, json: send('hi') })).status, 403)
  t.equal((await ROOT.call('POST', rootPath, { token: run, json: send('hi') })).status, 200)
  t.equal((await ROOT.call('POST', rootPath, { token: specific, json: send('hi') })).status, 200)
})

void t.test(
  '169 deprecated dispatch needs the run scope of the resolved family (3.0: removed)',
  async (t) => {
    const call = async (scopes: string[], target: string) =>
      J.call('POST', '/a2a/message/send', {
        token: await jwt(scopes),
        json: send('hi'),
        headers: { 'x-agent-id': target },
      })
    const ran = onSuiteLine({ '2.9': 200, '3.0': 404 })
    const team = await call(['agents:run'], 't1')
    t.same(
      [team.status, team.detail],
      onSuiteLine({ '2.9': [403, 'Insufficient permissions to run this team'], '3.0': REMOVED }),
    )
    t.equal((await call(['agents:run', 'teams:run'], 't1')).status, ran)
    t.equal((await call(['agents:run', 'teams:t1:run'], 't1')).status, ran, 'per-resource')
    const workflow = await call(['agents:run'], 'w1')
    t.same(
      [workflow.status, workflow.detail],
      onSuiteLine({
        '2.9': [403, 'Insufficient permissions to run this workflow'],
        '3.0': REMOVED,
      }),
    )
    t.equal((await call(['agents:run'], 'a1')).status, ran)
    t.equal((await call(['agents:run'], 'nope')).status, 404, 'unknown: the upstream answers')
  },
)

void t.test('170 tasks:get: admins unfiltered, scoped callers only their runs', async (t) => {
  const scopes = ['agents:run', 'agents:read']
  const userA = await jwt(scopes, { sub: 'user-a' })
  const userB = await jwt(scopes, { sub: 'user-b' })
  const admin = await jwt([ADMIN], { sub: 'root' })
  const started = await JI.call('POST', SEND, { token: userA, json: send('mine') })
  const { contextId, id } = (started.body as { result: { contextId: string; id: string } }).result
  const get = (token: string, params: Record<string, unknown>) =>
    JI.call('POST', '/a2a/agents/a1/v1/tasks:get', {
      token,
      json: { jsonrpc: '2.0', id: 2, method: 'tasks/get', params },
    })
  t.equal((await get(userA, { id, contextId })).status, 200, 'the owner')
  t.equal((await get(admin, { id, contextId })).status, 200, 'an admin')
  const foreign = await get(userB, { id, contextId })
  t.same([foreign.status, foreign.detail], [404, 'Run not found'], 'another user')
  const other = await JI.call('POST', '/a2a/agents/a2/v1/tasks:get', {
    token: userA,
    json: { jsonrpc: '2.0', id: 3, params: { id, contextId } },
  })
  t.same([other.status, other.detail], [404, 'Run not found'], 'the session of another component')
  const ownerless = await JI.call('POST', '/sessions?type=agent', {
    token: await jwt([ADMIN], { sub: null }),
    json: { agent_id: 'a1' },
  })
  const unowned = (ownerless.body as { session_id: string }).session_id
  t.equal((await get(userA, { id, contextId: unowned })).status, 404, 'an unowned session')
  const noContext = await get(userA, { id })
  t.same(
    [noContext.status, noContext.detail],
    [400, 'contextId is required to poll a task'],
    'no contextId: the upstream 400',
  )
  const noTask = await get(userA, { contextId })
  t.same(
    [noTask.status, noTask.detail],
    [400, 'Task ID (params.id) is required'],
    'no task id: the upstream 400',
  )
})
void t.test('171 AG-UI agent-bound: agents:run', async (t) => {
  const config = await jwt(['config:read'])
  const run = await jwt(['agents:run'])
  for (const path of ['/agui', '/chat/public/agui']) {
    const denied = await J.call('POST', path, { token: config, json: { messages: [] } })
    t.same([denied.status, denied.detail], [403, ip('agents:run')], path)
    t.equal((await J.call('POST', path, { token: run, json: { messages: [] } })).status, 200, path)
  }
})

void t.test('172 AG-UI team-bound: teams:run', async (t) => {
  const agents = await J.call('POST', '/team/agui', { token: await jwt(['agents:run']), json: {} })
  t.same([agents.status, agents.detail], [403, ip('teams:run')])
  const teams = await J.call('POST', '/team/agui', { token: await jwt(['teams:run']), json: {} })
  t.equal(teams.status, 200)
})

void t.test('173 AG-UI forwarded_props.user_id', async (t) => {
  const token = await jwt(['agents:run'], { sub: 'user-1' })
  const pinned = await J.call('POST', '/agui', {
    token,
    json: { messages: [], forwarded_props: { user_id: 'victim' } },
  })
  t.same([pinned.status, await aguiRunUser(J, pinned)], [200, 'user-1'])
  const absent = await J.call('POST', '/agui', { token, json: { messages: [] } })
  t.equal(await aguiRunUser(J, absent), 'user-1', 'set when the client sent none')
  const honoured = await O.call('POST', '/agui', {
    json: { messages: [], forwarded_props: { user_id: 'external-user' } },
  })
  t.same(
    [honoured.status, await aguiRunUser(O, honoured)],
    [200, 'external-user'],
    'no auth: honoured',
  )
  const reserved = await O.call('POST', '/agui', {
    json: { messages: [], forwardedProps: { user_id: 'sa:evil' } },
  })
  t.same([reserved.status, reserved.detail], [403, RESERVED], 'no auth: reserved refused')
})
