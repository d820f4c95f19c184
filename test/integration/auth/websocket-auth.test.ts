/**
 * WebSocket upgrades authenticate with the same core as HTTP: a header, a cookie or
 * `Sec-WebSocket-Protocol: bearer, <token>`. A missing or bad credential is refused on the raw
 * socket and the upstream never sees the connection (the runtime's `/ws/echo`).
 */
import t, { type Test } from 'tap'
import { startRuntime } from '../../helpers/runtime.js'
import { refusedHandshake, WsClient } from '../../helpers/websocket.js'
import { ip, jConfig, jwt, now, sConfig, stack, type Stack } from '../../conformance/fixtures.js'

const runtime = await startRuntime(t)
const J = await stack(
  t,
  runtime,
  jConfig({ token_source: 'both', scope_mappings: { 'GET /ws/scoped': ['agents:run'] } }),
)
const wsUrl = (fixture: Stack, path = '/ws/echo') =>
  `${fixture.gateway.url.replace(/^http/, 'ws')}${path}`

async function refused(
  t: Test,
  fixture: Stack,
  headers: Record<string, string>,
  status: number,
  detail: string,
  path?: string,
): Promise<void> {
  runtime.clear()
  const reply = await refusedHandshake(t, wsUrl(fixture, path), headers)
  t.equal(reply.status, status)
  t.same(JSON.parse(reply.body), { detail })
  t.equal(runtime.wsConnections.length, 0, 'the upstream saw nothing')
}

void t.test(
  'no credential, or a bad one, is refused before the upstream hears of it',
  async (t) => {
    await refused(
      t,
      J,
      {},
      401,
      "JWT token missing from both Authorization header and 'access_token' cookie",
    )
    await refused(t, J, { authorization: 'Bearer abc' }, 401, 'Invalid token: Not enough segments')
    const expired = await jwt([], { exp: now() - 3600 })
    await refused(t, J, { authorization: `Bearer ${expired}` }, 401, 'Token has expired')
    await refused(t, J, { cookie: `access_token=${expired}` }, 401, 'Token has expired')
    await refused(
      t,
      J,
      { 'sec-websocket-protocol': `bearer, ${expired}` },
      401,
      'Token has expired',
    )
    const forged = await jwt([], { key: 'not the gateway key, not at all!!' })
    await refused(
      t,
      J,
      { 'sec-websocket-protocol': `bearer, ${forged}` },
      401,
      'Invalid token: Signature verification failed',
    )
  },
)

void t.test('a header credential opens the relay with the verified identity', async (t) => {
  runtime.clear()
  const token = await jwt(['agents:read'], { sub: 'alice' })
  const client = await WsClient.open(t, wsUrl(J), [], { authorization: `Bearer ${token}` })
  client.socket.send('ping')
  t.same(await client.next(), { data: 'ping', isBinary: false })
  const upstream = runtime.wsConnections[0]
  t.equal(upstream?.headers['x-auth-user-id'], 'alice')
  t.equal(upstream?.headers.authorization, undefined, 'the credential stays at the gateway')
})

void t.test('a cookie credential works the same way', async (t) => {
  runtime.clear()
  const token = await jwt([], { sub: 'cookie-user' })
  const client = await WsClient.open(t, wsUrl(J), [], {
    cookie: `theme=dark; access_token=${token}`,
  })
  client.socket.send('hello')
  t.same(await client.next(), { data: 'hello', isBinary: false })
  t.equal(runtime.wsConnections[0]?.headers['x-auth-user-id'], 'cookie-user')
  t.equal(runtime.wsConnections[0]?.headers.cookie, 'theme=dark', 'the JWT cookie is not forwarded')
})

void t.test(
  'Sec-WebSocket-Protocol: bearer, <token>: accepted; the token is not offered upstream',
  async (t) => {
    runtime.clear()
    const token = await jwt([], { sub: 'browser-user' })
    const bare = await WsClient.open(t, wsUrl(J), ['bearer', token])
    t.equal(bare.socket.protocol, 'bearer', 'the client gets the protocol it offered first')
    t.same(runtime.wsConnections[0]?.protocols, [], 'neither bearer nor the token went upstream')
    t.equal(runtime.wsConnections[0]?.headers['x-auth-user-id'], 'browser-user')

    runtime.clear()
    const withChat = await WsClient.open(t, wsUrl(J), ['chat.v1', 'bearer', token])
    t.equal(withChat.socket.protocol, 'chat.v1', 'the upstream chose among the real protocols')
    t.same(runtime.wsConnections[0]?.protocols, ['chat.v1'])
    const offered = JSON.stringify(runtime.wsConnections[0]?.headers ?? {})
    t.notOk(offered.includes(token), 'the token appears in no upstream header')
  },
)

void t.test('route scopes apply to upgrades: 403 with the required scopes', async (t) => {
  const none = await jwt([])
  await refused(t, J, { authorization: `Bearer ${none}` }, 403, ip('agents:run'), '/ws/scoped')
  const holder = await jwt(['agents:run'])
  const reply = await refusedHandshake(t, wsUrl(J, '/ws/scoped'), {
    authorization: `Bearer ${holder}`,
  })
  t.equal(reply.status, 404, 'authorized and forwarded: the runtime has no /ws/scoped socket')
})

void t.test(
  'security-key mode: the key works; none → "Authorization header required"',
  async (t) => {
    const S = await stack(t, runtime, sConfig())
    await refused(t, S, {}, 401, 'Authorization header required')
    await refused(t, S, { authorization: 'Bearer wrong' }, 401, 'Invalid authentication token')
    runtime.clear()
    const client = await WsClient.open(t, wsUrl(S), [], {
      authorization: 'root-key-5f0c8e2a9b7d4c1e6a3f8b0d',
    })
    client.socket.send('key')
    t.same(await client.next(), { data: 'key', isBinary: false })
    t.equal(runtime.wsConnections[0]?.headers['x-auth-kind'], 'security_key')
  },
)
