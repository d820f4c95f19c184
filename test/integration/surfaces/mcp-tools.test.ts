/**
 * MCP-6, ISO-2 through the gateway: per-tool scopes on `tools/call` (single and batch,
 * JSON and SSE answers) and `user_id` pinning of tool arguments.
 */
import t from 'tap'
import {
  ADMIN,
  ip,
  jConfig,
  jwt,
  mint,
  sConfig,
  stack,
  withDatabase,
  type Stack,
} from './helpers.js'

const J = await stack(t, jConfig())
const JOFF = await stack(t, jConfig({ authorization: false }))
const JI = await stack(t, jConfig({ user_isolation: true }))
const S = await stack(t, sConfig(withDatabase(t)))

function toolCall(id: number | undefined, name: string, args: Record<string, unknown>) {
  return {
    jsonrpc: '2.0',
    ...(id === undefined ? {} : { id }),
    method: 'tools/call',
    params: { name, arguments: args },
  }
}

/** The JSON-RPC messages the upstream received in this call. */
function upstreamMessages(s: Stack): unknown[] {
  const json = s.runtime.requests.at(-1)?.json
  return Array.isArray(json) ? json : json === undefined ? [] : [json]
}

/** AgentOS's answer to a tool that raised `message` (docs/agentos-compatibility.md MCP-1). */
function toolError(id: number, tool: string, message: string) {
  return {
    jsonrpc: '2.0',
    id,
    result: {
      content: [{ type: 'text', text: `Error calling tool '${tool}': ${message}` }],
      isError: true,
    },
  }
}

void t.test('a denied call is a tool error with AgentOS text, HTTP 200', async (t) => {
  const token = await jwt(['config:read'])
  const reply = await J.call('POST', '/mcp', {
    token,
    json: toolCall(7, 'run_agent', { agent_id: 'a1' }),
  })
  t.equal(reply.status, 200)
  t.same(reply.body, toolError(7, 'run_agent', ip('agents:run')))
  t.equal(reply.upstream, undefined, 'nothing reached the upstream')
  const config = await J.call('POST', '/mcp', {
    token,
    json: toolCall(8, 'get_agentos_config', {}),
  })
  t.match(
    config.body,
    { id: 8, result: { isError: false } },
    'config:read covers get_agentos_config',
  )
})

void t.test('per-resource grants follow the tool arguments', async (t) => {
  const token = await jwt(['agents:a1:run', 'teams:run'])
  const a1 = await J.call('POST', '/mcp', {
    token,
    json: toolCall(1, 'run_agent', { agent_id: 'a1' }),
  })
  t.match(a1.body, { id: 1, result: { structuredContent: { result: { agent_id: 'a1' } } } })
  const a2 = await J.call('POST', '/mcp', {
    token,
    json: toolCall(2, 'run_agent', { agent_id: 'a2' }),
  })
  t.same(a2.body, toolError(2, 'run_agent', ip('agents:run')))
  const cancel = await J.call('POST', '/mcp', {
    token,
    json: toolCall(3, 'cancel_run', { team_id: 't1', run_id: 'r1', session_id: 's1' }),
  })
  t.match(cancel.body, { id: 3, result: {} }, 'cancel_run is checked as the team cancel route')
  const ambiguous = await J.call('POST', '/mcp', {
    token,
    json: toolCall(4, 'cancel_run', { agent_id: 'a1', team_id: 't1', run_id: 'r1' }),
  })
  t.same(
    ambiguous.body,
    toolError(4, 'cancel_run', 'Provide exactly one of agent_id, team_id, or workflow_id'),
    'one component, or refused',
  )
  const workflow = await J.call('POST', '/mcp', {
    token,
    json: toolCall(5, 'continue_run', { workflow_id: 'w1', run_id: 'r1' }),
  })
  t.same(workflow.body, toolError(5, 'continue_run', ip('workflows:run')))
})

void t.test('JWTs are not checked with authorization off; anonymous neither', async (t) => {
  const token = await jwt(['config:read'])
  const reply = await JOFF.call('POST', '/mcp', {
    token,
    json: toolCall(1, 'run_team', { team_id: 't1' }),
  })
  t.match(reply.body, { id: 1, result: { isError: false } })
})

void t.test('service accounts are always checked, and their user_id pinned', async (t) => {
  const reader = await mint(S, 'root-key-5f0c8e2a9b7d4c1e6a3f8b0d', 'mcp-reader', ['sessions:read'])
  const denied = await S.call('POST', '/mcp', {
    token: reader.token,
    json: toolCall(1, 'run_workflow', { workflow_id: 'w1' }),
  })
  t.same(denied.body, toolError(1, 'run_workflow', ip('workflows:run')))
  const sessions = await S.call('POST', '/mcp', {
    token: reader.token,
    json: toolCall(2, 'get_sessions', { user_id: 'victim' }),
  })
  t.match(sessions.body, { id: 2, result: { structuredContent: { user_id: 'sa:mcp-reader' } } })
  const runner = await mint(S, 'root-key-5f0c8e2a9b7d4c1e6a3f8b0d', 'mcp-runner')
  const run = await S.call('POST', '/mcp', {
    token: runner.token,
    json: toolCall(3, 'run_agent', { agent_id: 'a1', message: 'hi', user_id: 'mallory' }),
  })
  t.match(run.body, { result: { structuredContent: { result: { user_id: 'sa:mcp-runner' } } } })
  t.match(upstreamMessages(S), [{ params: { arguments: { user_id: 'sa:mcp-runner' } } }])
  const key = await S.call('POST', '/mcp', {
    token: 'root-key-5f0c8e2a9b7d4c1e6a3f8b0d',
    json: toolCall(4, 'run_agent', { agent_id: 'a1', user_id: 'someone' }),
  })
  t.match(key.body, { result: { structuredContent: { user_id: 'someone' } } }, 'the key: as is')
})

void t.test('7.2: run tools take the caller id; read tools pin scoped callers only', async (t) => {
  const user = await jwt(['agents:run', 'sessions:read'], { sub: 'u1' })
  const run = await J.call('POST', '/mcp', {
    token: user,
    json: toolCall(1, 'run_agent', { agent_id: 'a1', user_id: 'victim' }),
  })
  t.match(run.body, { result: { structuredContent: { user_id: 'u1' } } }, 'run: forced')
  const read = await J.call('POST', '/mcp', {
    token: user,
    json: toolCall(2, 'get_sessions', { user_id: 'victim' }),
  })
  t.match(read.body, { result: { structuredContent: { user_id: 'victim' } } }, 'read: honoured')
  const scoped = await JI.call('POST', '/mcp', {
    token: user,
    json: toolCall(3, 'get_session_runs', { session_id: 's1', user_id: 'victim' }),
  })
  t.match(scoped.body, { result: { structuredContent: { user_id: 'u1' } } }, 'read: pinned (JI)')
  const admin = await jwt([ADMIN], { sub: 'root' })
  const adminRead = await JI.call('POST', '/mcp', {
    token: admin,
    json: toolCall(4, 'get_sessions', { user_id: 'victim' }),
  })
  t.match(adminRead.body, { result: { structuredContent: { user_id: 'victim' } } }, 'admin: as is')
})

void t.test('a batch: the allowed call is forwarded, the denied one answered here', async (t) => {
  const token = await jwt(['agents:run'], { sub: 'u1' })
  const batch = [
    toolCall(1, 'run_agent', { agent_id: 'a1', message: 'go' }),
    toolCall(2, 'run_team', { team_id: 't1' }),
    toolCall(undefined, 'run_workflow', { workflow_id: 'w1' }),
    { jsonrpc: '2.0', id: 3, method: 'tools/list' },
  ]
  const reply = await J.call('POST', '/mcp', { token, json: batch })
  t.equal(reply.status, 200)
  const body = reply.body as { id: number }[]
  t.equal(body.length, 3, 'two upstream answers and one local error; the notification none')
  t.match(
    body.find((message) => message.id === 1),
    { result: { isError: false } },
  )
  t.match(
    body.find((message) => message.id === 3),
    { result: { tools: [] } },
  )
  t.same(
    body.find((message) => message.id === 2),
    toolError(2, 'run_team', ip('teams:run')),
  )
  t.same(
    upstreamMessages(J).map((message) => (message as { id?: number }).id),
    [1, 3],
    'only the allowed messages went upstream',
  )

  const sse = await J.call('POST', '/mcp', {
    token,
    json: batch,
    headers: { accept: 'application/json, text/event-stream' },
  })
  t.match(sse.headers['content-type'], 'text/event-stream')
  const events = sse.text
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice(6)) as { id: number })
  t.same(
    events.map((event) => event.id),
    [1, 3, 2],
    'the local error follows the upstream events',
  )

  const allDenied = await J.call('POST', '/mcp', {
    token,
    json: [toolCall(5, 'run_team', { team_id: 't1' }), toolCall(6, 'run_workflow', {})],
  })
  t.same(
    (allDenied.body as { id: number }[]).map((message) => message.id),
    [5, 6],
    'all denied: answered here as a batch',
  )
  t.equal(allDenied.upstream, undefined)
  const notification = await J.call('POST', '/mcp', {
    token,
    json: toolCall(undefined, 'run_team', { team_id: 't1' }),
  })
  t.same([notification.status, notification.text], [202, ''], 'a denied notification: 202')
})

void t.test('streamable HTTP: an SSE answer streams through', async (t) => {
  const token = await jwt(['agents:run'], { sub: 'u1' })
  const reply = await J.call('POST', '/mcp', {
    token,
    json: toolCall(1, 'run_agent', { agent_id: 'a1', message: 'stream me' }),
    headers: { accept: 'application/json, text/event-stream' },
  })
  t.equal(reply.status, 200)
  t.match(reply.headers['content-type'], 'text/event-stream')
  t.match(reply.text, /^event: message\r\ndata: \{.*"user_id":"u1"/m)
  t.equal(reply.headers['content-length'], undefined, 'not buffered into a length')
})

void t.test('a body that is not JSON is a JSON-RPC parse error', async (t) => {
  const token = await jwt(['agents:run'])
  const reply = await J.call('POST', '/mcp', { token, raw: '{"jsonrpc": "2.0", "id": NaN}' })
  // The id the SDK's transport names an error for no readable request: null is no RequestId.
  t.same(
    [reply.status, reply.body],
    [400, { jsonrpc: '2.0', id: 'server-error', error: { code: -32700, message: 'Parse error' } }],
  )
  t.equal(reply.upstream, undefined)
})
