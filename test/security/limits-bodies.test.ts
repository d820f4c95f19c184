/**
 * Resource limits on the bodies the gateway reads itself: url-encoded forms and
 * JSON it pins, MCP, A2A and AG-UI messages (/service-accounts, which needs a store, is in
 * limits-service-accounts). Each is bounded by `server.max_body_bytes` (413, whether the length is
 * declared or the body is chunked) and by `server.max_json_depth` (400: a deeper body used to end
 * in a stack overflow and a 500 when the gateway serialized it again). The upstream sees none of
 * them.
 */
import t from 'tap'
import { rawRequestHead } from '../helpers/raw-http.js'
import { startRuntime } from '../helpers/runtime.js'
import { WsClient } from '../helpers/websocket.js'
import { bearer, jwt, refused, securedGateway, send, sendRaw, wsUrl } from './harness.js'

const LIMIT = 4_096
const DEPTH = 32
const runtime = await startRuntime(t)
const gateway = await securedGateway(t, runtime, {
  server: { max_body_bytes: LIMIT, max_json_depth: DEPTH },
  auth: { user_isolation: true },
  interfaces: { workflow_websocket: { enabled: true } },
})
const user = await jwt(['agents:run', 'sessions:write', 'workflows:run'], { sub: 'alice' })
const JSON_TYPE = 'Content-Type: application/json'
const mcpCall = (args: string) =>
  `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"run_agent","arguments":{"agent_id":"a1","message":"hi","extra":${args}}}}`

/** [what, method, path, headers, body of about `size` bytes or nested `depth` deep]. */
const ROUTES: [string, string, string, string[], (filler: string) => string][] = [
  [
    'a pinned form',
    'POST',
    '/agents/a1/runs',
    [bearer(user), 'Content-Type: application/x-www-form-urlencoded'],
    (f) => `message=${encodeURIComponent(f)}`,
  ],
  [
    'a pinned JSON body',
    'POST',
    '/sessions',
    [bearer(user), JSON_TYPE],
    (f) => `{"session_name":${f}}`,
  ],
  [
    'MCP',
    'POST',
    '/mcp',
    ['Host: localhost', bearer(user), JSON_TYPE, 'Accept: application/json, text/event-stream'],
    (f) => mcpCall(f),
  ],
  [
    'A2A',
    'POST',
    '/a2a/agents/a1/v1/message:send',
    [bearer(user), JSON_TYPE],
    (f) =>
      `{"jsonrpc":"2.0","id":1,"method":"message/send","params":{"message":{"metadata":{"x":${f}}}}}`,
  ],
  ['AG-UI', 'POST', '/agui', [bearer(user), JSON_TYPE], (f) => `{"forwarded_props":{"x":${f}}}`],
]
const big = JSON.stringify('x'.repeat(LIMIT))
const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`

void t.test('above max_body_bytes: 413 with a declared length', async (t) => {
  for (const [what, method, path, lines, body] of ROUTES) {
    refused(t, await send(gateway, runtime, method, path, lines, body(big)), 413, undefined, what)
  }
})

void t.test('above max_body_bytes: 413 when chunked', async (t) => {
  for (const [what, method, path, lines, body] of ROUTES) {
    const payload = Buffer.from(body(big))
    const chunked = `${payload.length.toString(16)}\r\n${payload.toString('latin1')}\r\n0\r\n\r\n`
    const head = rawRequestHead(method, path, [
      ...(lines.some((line) => line.startsWith('Host:')) ? [] : ['Host: portcullis.test']),
      ...lines,
      'Transfer-Encoding: chunked',
    ])
    refused(t, await sendRaw(gateway, runtime, head + chunked), 413, undefined, what)
  }
})

void t.test('nested deeper than max_json_depth: 400, never a stack overflow', async (t) => {
  for (const [what, method, path, lines, body] of ROUTES.filter(
    ([what]) => what !== 'a pinned form',
  )) {
    if (what === 'a pinned JSON body') continue
    for (const depth of [DEPTH + 1, 1_000]) {
      refused(
        t,
        await send(gateway, runtime, method, path, lines, body(nested(depth))),
        400,
        'JSON body nested too deeply',
        `${what} at ${depth}`,
      )
    }
    const within = await send(gateway, runtime, method, path, lines, body(nested(DEPTH - 4)))
    t.not(within.status, 400, `${what}: within the limit it is read`)
    t.not(within.status, 500, `${what}: without an error`)
  }
  // The pinned JSON body is scanned without recursion, so its depth is the upstream's business.
  const pinned = await send(
    gateway,
    runtime,
    'POST',
    '/sessions',
    [bearer(user), JSON_TYPE],
    `{"x":${nested(1_000)}}`,
  )
  t.equal(
    (pinned.upstream[0]?.json as { user_id?: unknown } | undefined)?.user_id,
    'alice',
    'pinned',
  )
})

void t.test('the workflow socket: a frame nested too deeply closes it (1003)', async (t) => {
  const client = await WsClient.open(t, wsUrl(gateway, '/workflows/ws'), [], {
    authorization: `Bearer ${user}`,
  })
  await client.next()
  await client.next()
  client.socket.send(`{"action":"start-workflow","workflow_id":"w1","x":${nested(DEPTH + 1)}}`)
  t.same(await client.waitClosed(), { code: 1003, reason: 'JSON nested too deeply' })
})
