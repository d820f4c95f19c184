import t from 'tap'
import WebSocket from 'ws'
import { json, readSse, startRuntime, WsClient } from './helpers.js'

void t.test('/workflows/ws speaks the open-mode AgentOS protocol', async (t) => {
  const runtime = await startRuntime(t)
  const client = await WsClient.open(t, `${runtime.wsUrl}/workflows/ws`)
  t.same(await client.nextJson(), {
    event: 'connected',
    message: 'Connected to AgentOS.',
    requires_auth: false,
  })
  client.send({ action: 'ping' })
  t.same(await client.nextJson(), { event: 'pong' })
  client.send({ action: 'authenticate', token: 'anything' })
  t.same(await client.nextJson(), {
    event: 'authenticated',
    message: 'Authentication successful. You can now send commands.',
  })
  client.send({ action: 'start-workflow', workflow_id: 'w1', message: 'go', user_id: 'dave' })
  const started = await client.nextJson()
  t.match(started, { event: 'WorkflowStarted', workflow_id: 'w1', user_id: 'dave' })
  t.match(await client.nextJson(), {
    event: 'WorkflowCompleted',
    run_id: (started as { run_id: string }).run_id,
    content: 'echo: go',
    user_id: 'dave',
  })
  client.send({ action: 'dance' })
  t.same(await client.nextJson(), { event: 'error', error: 'Unknown action: dance' })
  client.send('not json')
  t.same(await client.next(), { data: 'not json', isBinary: false })
  t.equal(runtime.wsConnections.length, 1)
  t.match(runtime.wsConnections[0], { path: '/workflows/ws', protocols: [] })
  t.equal(runtime.wsConnections[0]?.received.length, 5)
})

void t.test('/ws/echo echoes frames, picks a subprotocol and closes on request', async (t) => {
  const runtime = await startRuntime(t)
  const client = await WsClient.open(t, `${runtime.wsUrl}/ws/echo`, ['bearer', 'chat.v1'])
  t.equal(client.socket.protocol, 'chat.v1')
  client.send('hello')
  t.same(await client.next(), { data: 'hello', isBinary: false })
  client.socket.send(Buffer.from([1, 2, 3]))
  t.same(await client.next(), { data: Buffer.from([1, 2, 3]), isBinary: true })
  const closed = new Promise<[number, string]>((resolve) =>
    client.socket.once('close', (code, reason) => resolve([code, reason.toString()])),
  )
  client.send('close:4001:bye now')
  t.same(await closed, [4001, 'bye now'])
  t.match(runtime.wsConnections[0], {
    path: '/ws/echo',
    protocols: ['bearer', 'chat.v1'],
    selectedProtocol: 'chat.v1',
    received: ['hello', Buffer.from([1, 2, 3]), 'close:4001:bye now'],
  })
})

void t.test('an upgrade to any other path gets a 404', async (t) => {
  const runtime = await startRuntime(t)
  const socket = new WebSocket(`${runtime.wsUrl}/ws/elsewhere`)
  const status = await new Promise<number | undefined>((resolve) => {
    socket.once('unexpected-response', (_req, res) => resolve(res.statusCode))
    socket.once('error', () => resolve(undefined))
  })
  t.equal(status, 404)
  t.equal(runtime.wsConnections.length, 0)
})

void t.test('MCP answers batches as JSON or SSE; notifications alone get 202', async (t) => {
  const runtime = await startRuntime(t)
  const post = (body: unknown, accept = 'application/json') =>
    fetch(`${runtime.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept },
      body: JSON.stringify(body),
    })
  const batch = [
    { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-03-26' } },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    {
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'get_sessions', arguments: { user_id: 'erin' } },
    },
    { jsonrpc: '2.0', id: 3, method: 'nope' },
  ]
  const response = await post(batch)
  t.ok(response.headers.get('mcp-session-id'))
  t.match(await json(response), [
    { id: 1, result: { protocolVersion: '2025-03-26', serverInfo: { name: 'agentos-demo' } } },
    { id: 2, result: { structuredContent: { tool: 'get_sessions', user_id: 'erin' } } },
    { id: 3, error: { code: -32601 } },
  ])
  const streamed = await post(batch, 'application/json, text/event-stream')
  const events = await readSse(streamed)
  t.same(
    events.map((event) => [event.event, (event.data as { id: number }).id]),
    [
      ['message', 1],
      ['message', 2],
      ['message', 3],
    ],
  )
  const notification = await post({ jsonrpc: '2.0', method: 'notifications/initialized' })
  t.equal(notification.status, 202)
})

void t.test('A2A takes the user id from X-User-ID, else from the message metadata', async (t) => {
  const runtime = await startRuntime(t)
  const send = (headers: Record<string, string>, path = '/a2a/agents/a1/v1/message:send') =>
    fetch(`${runtime.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 'r1',
        method: 'message/send',
        params: {
          message: {
            role: 'user',
            parts: [{ kind: 'text', text: 'hi' }],
            metadata: { userId: 'meta-user' },
          },
        },
      }),
    })
  const byHeader = (await json(await send({ 'x-user-id': 'header-user' }))) as {
    result: { contextId: string; id: string }
  }
  t.match(byHeader, {
    jsonrpc: '2.0',
    id: 'r1',
    result: {
      kind: 'task',
      contextId: String,
      status: { state: 'completed' },
      history: [{ kind: 'message', role: 'agent', metadata: { userId: 'header-user' } }],
    },
  })
  const userOf = (body: unknown) =>
    (body as { result: { history: { metadata?: { userId?: string } }[] } }).result.history[0]
      ?.metadata?.userId
  t.equal(userOf(await json(await send({}))), 'meta-user')
  const deprecated = await send({ 'x-agent-id': 't1' }, '/a2a/message/send')
  t.equal(userOf(await json(deprecated)), 'meta-user', 'the deprecated dispatch')
  const post = (path: string, params: object) =>
    fetch(`${runtime.url}/a2a/agents/a1/v1/${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tasks/get', params }),
    })
  const { id, contextId } = byHeader.result
  const refusals: [string, object, number, string][] = [
    ['tasks:get', { contextId }, 400, 'Task ID (params.id) is required'],
    ['tasks:get', { id }, 400, 'contextId is required to poll a task'],
    ['tasks:get', { id: 'nope', contextId }, 404, 'Task not found'],
    ['tasks:get', { id, contextId: 'other' }, 404, 'Task not found'],
    ['tasks:cancel', {}, 400, 'Task ID (params.id) is required'],
  ]
  for (const [path, params, status, detail] of refusals) {
    const reply = await post(path, params)
    t.same(
      [reply.status, await json(reply)],
      [status, { detail }],
      `${path} ${JSON.stringify(params)}`,
    )
  }
  t.equal(userOf(await json(await post('tasks:get', { id, contextId }))), 'header-user')
  const cancelled = await json(await post('tasks:cancel', { id }))
  t.match(cancelled, {
    result: { id, kind: 'task', status: { state: 'canceled' }, contextId: String },
  })
  t.match(await json(await post('tasks:get', { id, contextId })), {
    result: { status: { state: 'canceled' } },
  })
  const workflowTasks = await fetch(`${runtime.url}/a2a/workflows/w1/v1/tasks:get`, {
    method: 'POST',
  })
  t.equal(workflowTasks.status, 404, 'workflows have no task routes')
})

void t.test('A2A agent card and stream as AgentOS 2.9 writes them', async (t) => {
  const runtime = await startRuntime(t)
  const card = await json(
    await fetch(`${runtime.url}/protocol/teams/t1/.well-known/agent-card.json`),
  )
  t.match(card, {
    url: `${runtime.url}/a2a/teams/t1/v1/message:stream`,
    protocolVersion: '0.3.0',
    preferredTransport: 'JSONRPC',
    capabilities: { streaming: true },
    skills: [{ id: 't1', tags: ['agno'] }],
  })
  const response = await fetch(`${runtime.url}/a2a/agents/a1/v1/message:stream`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 's1',
      method: 'message/stream',
      params: { message: { role: 'user', parts: [{ kind: 'text', text: 'hi' }] } },
    }),
  })
  const events = await readSse(response)
  t.same(
    events.map((event) => [event.event, (event.data as { result: { kind: string } }).result.kind]),
    [
      ['TaskStatusUpdateEvent', 'status-update'],
      ['Message', 'message'],
      ['TaskStatusUpdateEvent', 'status-update'],
      ['Task', 'task'],
    ],
  )
  t.match(events[2]?.data, { id: 's1', result: { final: true, status: { state: 'completed' } } })
})

void t.test('AG-UI streams AgentOS’s events; the run is forwarded_props.user_id’s', async (t) => {
  const runtime = await startRuntime(t)
  const response = await fetch(`${runtime.url}/agui`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      threadId: 'th1',
      runId: 'run1',
      messages: [{ id: 'm1', role: 'user', content: 'hey' }],
      forwarded_props: { user_id: 'frank' },
    }),
  })
  const events = (await readSse(response)).map((event) => event.data)
  t.same(events[0], { type: 'RUN_STARTED', threadId: 'th1', runId: 'run1' })
  t.match(events[2], { type: 'TEXT_MESSAGE_CONTENT', delta: 'echo: hey' })
  t.same(events.at(-1), { type: 'RUN_FINISHED', threadId: 'th1', runId: 'run1' })
  t.notOk(JSON.stringify(events).includes('user_id'), 'no event names the user')
  const session = await json(await fetch(`${runtime.url}/sessions/th1?type=agent`))
  t.match(session, { user_id: 'frank' })
})

void t.test(
  'MCP tools raise as AgentOS: an isError result with fastmcp text, CRLF SSE',
  async (t) => {
    const runtime = await startRuntime(t)
    const call = (id: number, name: string, args: Record<string, unknown>) =>
      fetch(`${runtime.url}/mcp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id,
          method: 'tools/call',
          params: { name, arguments: args },
        }),
      }).then((response) => response.text())
    const error = (id: number, text: string) =>
      `event: message\r\ndata: ${JSON.stringify({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text }], isError: true } })}\r\n\r\n`
    t.equal(
      await call(1, 'cancel_run', { agent_id: 'a1', team_id: 't1', run_id: 'r' }),
      error(
        1,
        "Error calling tool 'cancel_run': Provide exactly one of agent_id, team_id, or workflow_id",
      ),
    )
    t.equal(
      await call(2, 'continue_run', { team_id: 'nope', run_id: 'r' }),
      error(2, "Error calling tool 'continue_run': Component nope not found"),
    )
    t.equal(
      await call(3, 'run_team', { team_id: 'zz' }),
      error(3, "Error calling tool 'run_team': Team zz not found"),
    )
  },
)

void t.test(
  'A2A and AG-UI refuse a reserved principal from a caller without identity',
  async (t) => {
    const runtime = await startRuntime(t)
    const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
      fetch(`${runtime.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
      })
    const message = (metadata?: Record<string, unknown>) => ({
      jsonrpc: '2.0',
      id: 1,
      method: 'message/send',
      params: { message: { kind: 'message', messageId: 'm', role: 'user', parts: [], metadata } },
    })
    const denied = { detail: 'Client-supplied user_id may not claim a reserved principal' }
    for (const userId of ['sa:bot', '__scheduler__', '__oauth__:c']) {
      const header = await post('/a2a/agents/a1/v1/message:send', message(), {
        'x-user-id': userId,
      })
      t.same([header.status, await header.json()], [403, denied], `X-User-ID ${userId}`)
      const stream = await post('/a2a/teams/t1/v1/message:stream', message({ userId }))
      t.equal(stream.status, 403, `metadata.userId ${userId}, streaming`)
      const agui = await post('/agui', { messages: [], forwarded_props: { user_id: userId } })
      t.equal(agui.status, 403, `AG-UI ${userId}`)
    }
    const alias = await post('/a2a/agents/a1/v1/message:send', message(), {
      'x-user-id': '__portcullis__:sa:bot',
    })
    t.equal(alias.status, 200, 'the gateway alias is no AgentOS principal')
    const empty = await post('/a2a/agents/a1/v1/message:send', message({ userId: 'sa:x' }), {
      'x-user-id': '',
    })
    t.equal(empty.status, 403, 'an empty header falls back to the metadata')
    const rest = await fetch(`${runtime.url}/agents/a1/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'message=hi&user_id=sa%3Abot',
    })
    t.equal(rest.status, 200, 'REST runs have no such check')
  },
)
