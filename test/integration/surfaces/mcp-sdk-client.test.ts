/**
 * The refusals of MCP tool calls with the official MCP client (`@modelcontextprotocol/sdk`) over
 * streamable HTTP through the real gateway: a refused tool call is a tool result with `isError`
 * and AgentOS's text (the SDK returns it, the session lives on), and `cancel_run` checks that a
 * scoped caller owns the run (docs/agentos-compatibility.md MCP-1 to MCP-5).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import t, { type Test } from 'tap'
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
const JI = await stack(t, jConfig({ user_isolation: true }))
const S = await stack(t, sConfig(withDatabase(t)))

async function connect(t: Test, s: Stack, token: string): Promise<Client> {
  const client = new Client({ name: 'portcullis-test', version: '1.0.0' })
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', s.gateway.url), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  })
  await client.connect(transport)
  t.teardown(() => client.close())
  return client
}

interface ToolResult {
  readonly isError?: boolean
  readonly content: readonly { type: string; text?: string }[]
  readonly structuredContent?: Record<string, unknown>
}

async function call(client: Client, name: string, args: Record<string, unknown>) {
  return (await client.callTool({ name, arguments: args })) as ToolResult
}

const errorText = (result: ToolResult) => (result.isError === true ? result.content[0]?.text : '')

void t.test('a scope refusal is a tool error the SDK returns; the session lives on', async (t) => {
  const client = await connect(t, J, await jwt(['config:read']))
  const refused = await call(client, 'run_agent', { agent_id: 'a1', message: 'hi' })
  t.same(refused, {
    content: [{ type: 'text', text: `Error calling tool 'run_agent': ${ip('agents:run')}` }],
    isError: true,
  })
  const config = await call(client, 'get_agentos_config', {})
  t.notOk(config.isError, 'the next call on the same session works')
  const ambiguous = await call(client, 'cancel_run', { agent_id: 'a1', team_id: 't1', run_id: 'r' })
  t.equal(
    errorText(ambiguous),
    "Error calling tool 'cancel_run': Provide exactly one of agent_id, team_id, or workflow_id",
  )
})

void t.test('the upstream raising is the same shape (the demo does as AgentOS)', async (t) => {
  const client = await connect(t, J, await jwt(['agents:run']))
  const missing = await call(client, 'run_agent', { agent_id: 'nope', message: 'hi' })
  t.equal(errorText(missing), "Error calling tool 'run_agent': Agent nope not found")
  t.equal(J.runtime.requests.at(-1)?.path, '/mcp', 'this one was answered upstream')
})

void t.test('a local refusal is framed byte for byte as the upstream frames one', async (t) => {
  const token = await jwt(['config:read'])
  const headers = { accept: 'application/json, text/event-stream' }
  const body = (id: number, name: string, args: Record<string, unknown>) => ({
    jsonrpc: '2.0',
    id,
    method: 'tools/call',
    params: { name, arguments: args },
  })
  const local = await J.call('POST', '/mcp', {
    token,
    headers,
    json: body(7, 'run_agent', { agent_id: 'a1' }),
  })
  t.equal(local.upstream, undefined, 'answered by the gateway')
  t.equal(local.status, 200)
  t.match(local.headers['content-type'], /^text\/event-stream/)
  const text = `Error calling tool 'run_agent': ${ip('agents:run')}`
  t.equal(
    local.text,
    `event: message\r\ndata: {"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"${text}"}],"isError":true}}\r\n\r\n`,
  )
  const runner = await jwt(['agents:run'])
  const upstream = await J.call('POST', '/mcp', {
    token: runner,
    headers,
    json: body(8, 'run_agent', { agent_id: 'zz' }),
  })
  t.equal(
    upstream.text,
    `event: message\r\ndata: {"jsonrpc":"2.0","id":8,"result":{"content":[{"type":"text","text":"Error calling tool 'run_agent': Agent zz not found"}],"isError":true}}\r\n\r\n`,
  )
  const json = await J.call('POST', '/mcp', { token, json: body(9, 'run_agent', {}) })
  t.match(json.headers['content-type'], /^application\/json/, 'JSON when no stream is accepted')
  t.match(json.body, { id: 9, result: { isError: true } })
})

/** The run's status as the upstream keeps it, read by an admin over REST. */
async function statusOf(s: Stack, run: { run_id: string; session_id: string }, token: string) {
  const path = `/agents/a1/runs/${run.run_id}?session_id=${run.session_id}`
  const reply = await s.call('GET', path, { token })
  return (reply.body as { status?: string }).status
}

/** A run of `client`'s user on agent a1, with its session. */
async function runOf(client: Client): Promise<{ run_id: string; session_id: string }> {
  const run = await call(client, 'run_agent', { agent_id: 'a1', message: 'work' })
  const result = run.structuredContent?.['result'] as { run_id: string; session_id: string }
  return { run_id: result.run_id, session_id: result.session_id }
}

void t.test('cancel_run: a scoped caller cannot cancel another user’s run', async (t) => {
  const owner = await connect(t, JI, await jwt(['agents:run'], { sub: 'u1' }))
  const other = await connect(t, JI, await jwt(['agents:run'], { sub: 'u2' }))
  const run = await runOf(owner)
  const args = { agent_id: 'a1', ...run }
  t.equal(
    errorText(await call(other, 'cancel_run', args)),
    "Error calling tool 'cancel_run': Run not found",
  )
  const admin = await jwt([ADMIN], { sub: 'root' })
  t.equal(await statusOf(JI, run, admin), 'COMPLETED', 'not cancelled')
  t.equal(
    errorText(await call(other, 'cancel_run', { agent_id: 'a1', run_id: run.run_id })),
    "Error calling tool 'cancel_run': session_id is required to act on this run",
  )
  t.equal(
    errorText(await call(other, 'continue_run', args)),
    "Error calling tool 'continue_run': Run not found",
    'continue_run likewise',
  )
  const mine = await call(owner, 'cancel_run', args)
  t.notOk(mine.isError, 'the owner cancels')
  t.equal(await statusOf(JI, run, admin), 'CANCELLED')
})

void t.test('cancel_run: service accounts are always scoped', async (t) => {
  const a = await mint(S, 'root-key-5f0c8e2a9b7d4c1e6a3f8b0d', 'mcp-owner', ['agents:run'])
  const b = await mint(S, 'root-key-5f0c8e2a9b7d4c1e6a3f8b0d', 'mcp-intruder', ['agents:run'])
  const owner = await connect(t, S, a.token)
  const intruder = await connect(t, S, b.token)
  const run = await runOf(owner)
  const refused = await call(intruder, 'cancel_run', { agent_id: 'a1', ...run })
  t.equal(errorText(refused), "Error calling tool 'cancel_run': Run not found")
  t.equal(await statusOf(S, run, 'root-key-5f0c8e2a9b7d4c1e6a3f8b0d'), 'COMPLETED', 'not cancelled')
  const root = await connect(t, S, 'root-key-5f0c8e2a9b7d4c1e6a3f8b0d')
  t.notOk(
    (await call(root, 'cancel_run', { agent_id: 'a1', run_id: run.run_id })).isError,
    'the key is unscoped',
  )
})
