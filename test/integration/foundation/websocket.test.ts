import { randomBytes } from 'node:crypto'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import { WebSocketServer } from 'ws'
import { startFoundationGateway } from '../../helpers/foundation.js'
import type { TestGateway } from '../../helpers/gateway.js'
import { metricValue } from '../../helpers/metrics.js'
import { rawExchange, rawRequestHead } from '../../helpers/raw-http.js'
import { closedPort, startRuntime } from '../../helpers/runtime.js'
import { waitFor, within } from '../../helpers/wait.js'
import { WsClient, refusedHandshake, startWsUpstream } from '../../helpers/websocket.js'

const HANDSHAKE = [
  'Host: portcullis.test',
  'Upgrade: websocket',
  'Connection: Upgrade',
  'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==',
  'Sec-WebSocket-Version: 13',
]

const wsUrl = (gateway: TestGateway, path: string): string =>
  `${gateway.url.replace(/^http/, 'ws')}${path}`

void t.test('frames are relayed both ways, text as text and binary as binary', async (t) => {
  const runtime = await startRuntime(t)
  const gateway = await startFoundationGateway(t, { upstream: { url: runtime.url } })
  const client = await WsClient.open(t, wsUrl(gateway, '/ws/echo'))

  client.socket.send('hello, gateway')
  t.same(await client.next(), { data: 'hello, gateway', isBinary: false })
  client.socket.send('h\u00e9llo \u{1F510}')
  t.same(await client.next(), { data: 'h\u00e9llo \u{1F510}', isBinary: false }, 'UTF-8 text')
  const binary = Buffer.from([0, 1, 2, 0xfe, 0xff])
  client.socket.send(binary, { binary: true })
  t.same(await client.next(), { data: binary, isBinary: true })
  const text = Buffer.from('text-looking bytes')
  client.socket.send(text, { binary: true })
  t.same(
    await client.next(),
    { data: text, isBinary: true },
    'binary that looks like text stays binary',
  )
  const large = randomBytes(2 * 1024 * 1024)
  client.socket.send(large, { binary: true })
  t.same(await client.next('a 2 MiB frame'), { data: large, isBinary: true }, 'a 2 MiB frame')
  for (let index = 0; index < 100; index++) client.socket.send(`m${index}`)
  const order: unknown[] = []
  for (let index = 0; index < 100; index++) order.push((await client.next()).data)
  t.same(
    order,
    Array.from({ length: 100 }, (_, index) => `m${index}`),
    'order is kept',
  )

  const upstream = runtime.wsConnections[0]
  t.equal(upstream?.path, '/ws/echo')
  t.same(upstream?.received.slice(0, 2), ['hello, gateway', 'h\u00e9llo \u{1F510}'])
  t.ok(Buffer.isBuffer(upstream?.received[2]), 'the upstream received a binary frame')
})

void t.test('close codes and reasons propagate both ways', async (t) => {
  const upstream = await startWsUpstream(t)
  const gateway = await startFoundationGateway(t, { upstream: { url: upstream.url } })

  const client = await WsClient.open(t, wsUrl(gateway, '/by-client'))
  await waitFor(() => upstream.connections.length === 1, 'the upstream connection')
  client.socket.close(4001, 'client says bye')
  t.same(await client.waitClosed(), { code: 4001, reason: 'client says bye' })
  await waitFor(
    () => upstream.connections[0]?.closed !== undefined,
    'the upstream to see the close',
  )
  t.same(
    upstream.connections[0]?.closed,
    { code: 4001, reason: 'client says bye' },
    'upstream saw 4001',
  )

  const second = await WsClient.open(t, wsUrl(gateway, '/by-upstream'))
  second.socket.send('close:4002:upstream says bye')
  t.same(await second.waitClosed(), { code: 4002, reason: 'upstream says bye' }, 'client saw 4002')

  const third = await WsClient.open(t, wsUrl(gateway, '/normal'))
  third.socket.close(1000)
  t.same(await third.waitClosed(), { code: 1000, reason: '' })
  await waitFor(() => upstream.connections[2]?.closed !== undefined, 'the upstream to see 1000')
  t.equal(upstream.connections[2]?.closed?.code, 1000)

  // The demo runtime's echo closes the same way.
  const runtime = await startRuntime(t)
  const viaRuntime = await startFoundationGateway(t, { upstream: { url: runtime.url } })
  const echo = await WsClient.open(t, wsUrl(viaRuntime, '/ws/echo'))
  echo.socket.send('close:4003:runtime bye')
  t.same(await echo.waitClosed(), { code: 4003, reason: 'runtime bye' })
})

void t.test('subprotocol negotiation passes through', async (t) => {
  const runtime = await startRuntime(t)
  const gateway = await startFoundationGateway(t, { upstream: { url: runtime.url } })
  const chat = await WsClient.open(t, wsUrl(gateway, '/ws/echo'), ['chat.v2', 'chat.v1'])
  t.equal(chat.socket.protocol, 'chat.v2', "the upstream's choice reaches the client")
  t.same(
    runtime.wsConnections[0]?.protocols,
    ['chat.v2', 'chat.v1'],
    'every offer reached the upstream',
  )
  t.equal(runtime.wsConnections[0]?.selectedProtocol, 'chat.v2')

  const none = await WsClient.open(t, wsUrl(gateway, '/ws/echo'))
  t.equal(none.socket.protocol, '', 'no offer, no protocol')
  t.equal(runtime.wsConnections[1]?.headers['sec-websocket-protocol'], undefined)
})

void t.test(
  'an upstream that accepts without choosing an offered subprotocol is relayed as such',
  async (t) => {
    // AgentOS's /workflows/ws accepts without a subprotocol whatever the client offers. Directly,
    // the handshake succeeds (101, no Sec-WebSocket-Protocol); through the gateway it must too,
    // not become a 502 "Upstream unavailable" for an upstream that is up and answered.
    const upstream = await startWsUpstream(t, { choosesProtocol: false })
    const gateway = await startFoundationGateway(t, { upstream: { url: upstream.url } })
    const offer = [...HANDSHAKE, 'Sec-WebSocket-Protocol: x-unknown']
    const direct = await rawExchange(upstream.port, rawRequestHead('GET', '/socket', offer))
    t.equal(direct.status, 101, 'the upstream accepts directly')
    t.equal(direct.headers['sec-websocket-protocol'], undefined, 'choosing no subprotocol')
    const proxied = await rawExchange(gateway.port, rawRequestHead('GET', '/socket', offer))
    t.equal(proxied.status, 101, `through the gateway too (got ${proxied.status} ${proxied.body})`)
    t.equal(proxied.headers['sec-websocket-protocol'], undefined)
  },
)

void t.test(
  'identity, forwarded-path and forwarding headers are cleaned on the upgrade too',
  async (t) => {
    const runtime = await startRuntime(t)
    const gateway = await startFoundationGateway(t, { upstream: { url: runtime.url } })
    await WsClient.open(t, wsUrl(gateway, '/ws/echo'), [], {
      'X-Auth-User-Id': 'mallory',
      x_auth_scopes: 'os:admin',
      'X-AUTH-ROLE': 'admin',
      'X-Original-URL': '/admin',
      'X-Forwarded-Prefix': '/admin',
      'X-Forwarded-For': '203.0.113.7',
      'X-Forwarded-Proto': 'https',
      Forwarded: 'for=203.0.113.7',
      'Proxy-Authorization': 'Basic dXNlcjpwYXNz',
      'X-Normal': 'kept',
    })
    const headers = runtime.wsConnections[0]?.headers ?? {}
    t.same(
      Object.keys(headers).filter((name) => /^x[-_]auth[-_]/i.test(name)),
      [],
      'no identity header reached the upstream',
    )
    t.equal(headers['x-original-url'], undefined)
    t.equal(headers['x-forwarded-prefix'], undefined)
    t.equal(headers['proxy-authorization'], undefined)
    t.equal(headers.forwarded, undefined)
    t.equal(headers['x-forwarded-for'], '127.0.0.1')
    t.equal(headers['x-forwarded-proto'], 'http')
    t.equal(headers['x-normal'], 'kept')
    t.match(headers['x-request-id'], /^[0-9a-f-]{36}$/)
  },
)

void t.test('a dead upstream gives a clean 502 on the raw socket', async (t) => {
  const port = await closedPort()
  const gateway = await startFoundationGateway(t, { upstream: { url: `http://127.0.0.1:${port}` } })
  const response = await rawExchange(gateway.port, rawRequestHead('GET', '/ws/echo', HANDSHAKE))
  t.match(response.head, /^HTTP\/1\.1 502 /)
  t.match(response.headers['content-type'], /^application\/json/)
  t.equal(response.body, '{"detail":"Upstream unavailable"}')
  t.notMatch(response.head + response.body, new RegExp(`ECONNREFUSED|:${port}\\b`), 'no internals')
  const refused = await refusedHandshake(t, wsUrl(gateway, '/ws/echo'))
  t.equal(refused.status, 502, 'a WebSocket client sees the 502 too')
  t.equal(
    metricValue(await gateway.metrics(), 'portcullis_websocket_upgrades_total', { outcome: '502' }),
    2,
  )
})

void t.test("the upstream's refusal of a handshake reaches the client with its body", async (t) => {
  const runtime = await startRuntime(t)
  const gateway = await startFoundationGateway(t, { upstream: { url: runtime.url } })
  // The runtime answers upgrades to unknown paths with 404 {"detail":"Not Found"}.
  const refused = await refusedHandshake(t, wsUrl(gateway, '/ws/no-such-socket'))
  t.equal(refused.status, 404)
  t.equal(refused.body, '{"detail":"Not Found"}', "the upstream's body")
})

void t.test(
  'non-WebSocket upgrades and bad handshakes are refused before the upstream',
  async (t) => {
    const runtime = await startRuntime(t)
    const gateway = await startFoundationGateway(t, { upstream: { url: runtime.url } })
    const h2c = await rawExchange(
      gateway.port,
      rawRequestHead('GET', '/echo', [
        'Host: portcullis.test',
        'Connection: Upgrade, HTTP2-Settings',
        'Upgrade: h2c',
        'HTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA',
      ]),
    )
    t.equal(h2c.status, 400, 'Upgrade: h2c')
    t.same(JSON.parse(h2c.body), {
      detail: 'Unsupported upgrade: only WebSocket upgrades are accepted',
    })

    const cases: [string, string, string[]][] = [
      ['POST', '/ws/echo', HANDSHAKE],
      ['GET', '/ws/echo', HANDSHAKE.filter((line) => !line.startsWith('Sec-WebSocket-Key'))],
      [
        'GET',
        '/ws/echo',
        [
          ...HANDSHAKE.filter((line) => !line.startsWith('Sec-WebSocket-Version')),
          'Sec-WebSocket-Version: 8',
        ],
      ],
      ['GET', '/ws/echo', ['Host: x', 'Upgrade: TLS/1.2', 'Connection: Upgrade']],
    ]
    for (const [method, path, lines] of cases) {
      const response = await rawExchange(gateway.port, rawRequestHead(method, path, lines))
      t.equal(response.status, 400, `${method} ${lines.join(' | ')}`)
      t.match(JSON.parse(response.body), { detail: String })
    }
    t.equal(runtime.started, 0, 'no HTTP request reached the upstream')
    t.same(runtime.wsConnections, [], 'no WebSocket reached the upstream')
  },
)

void t.test('an ambiguous path on an upgrade is refused with 400', async (t) => {
  const runtime = await startRuntime(t)
  const gateway = await startFoundationGateway(t, { upstream: { url: runtime.url } })
  for (const path of [
    '/ws/../ws/echo',
    '/ws%2Fecho',
    '//ws/echo',
    '/ws/echo;x',
    '/ws/%2e%2e/echo',
  ]) {
    const response = await rawExchange(gateway.port, rawRequestHead('GET', path, HANDSHAKE))
    t.equal(response.status, 400, path)
    t.equal(response.body, '{"detail":"Invalid request path"}', path)
  }
  t.same(runtime.wsConnections, [], 'no WebSocket reached the upstream')
  // The canonical path is what reaches the upstream.
  await WsClient.open(t, wsUrl(gateway, '/ws/echo///?room=1'))
  t.equal(runtime.wsConnections[0]?.path, '/ws/echo')
})

void t.test('graceful shutdown closes relayed sockets with 1001', async (t) => {
  const upstream = await startWsUpstream(t)
  const gateway = await startFoundationGateway(t, { upstream: { url: upstream.url } })
  const first = await WsClient.open(t, wsUrl(gateway, '/one'))
  const second = await WsClient.open(t, wsUrl(gateway, '/two'))
  first.socket.send('ping')
  t.same(await first.next(), { data: 'ping', isBinary: false })
  t.equal(metricValue(await gateway.metrics(), 'portcullis_websocket_connections'), 2)

  await gateway.stop()
  t.equal((await first.waitClosed()).code, 1001, 'the first client saw 1001 (going away)')
  t.equal((await second.waitClosed()).code, 1001, 'the second client saw 1001')
  await waitFor(
    () => upstream.connections.every((connection) => connection.closed !== undefined),
    'the upstream sockets to close',
  )
  t.same(
    upstream.connections.map((connection) => connection.closed?.code),
    [1001, 1001],
    'the upstream was told the gateway is going away too',
  )
})

void t.test(
  'a WebSocket whose handshake spans a configuration swap is still closed with 1001 at shutdown',
  async (t) => {
    // The upstream holds each handshake until the test lets it complete.
    let release: () => void = () => undefined
    let held = 0
    const server = new WebSocketServer({
      port: 0,
      host: '127.0.0.1',
      verifyClient: (_info, done: (result: boolean) => void) => {
        held++
        release = () => done(true)
      },
    })
    await new Promise<void>((resolve) => server.once('listening', () => resolve()))
    t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())))
    const { port } = server.address() as AddressInfo
    const gateway = await startFoundationGateway(t, {
      upstream: { url: `http://127.0.0.1:${port}`, agentos_version: '2.9' },
      auth: { deny_unmapped_routes: false },
    })
    const opening = WsClient.open(t, wsUrl(gateway, '/held'))
    await waitFor(() => held === 1, 'the upgrade to reach the upstream')
    t.equal((await gateway.gateway.reload()).outcome, 'applied', 'a new generation meanwhile')
    release()
    const client = await opening
    await within(gateway.stop(), 'shutdown', 30_000)
    t.equal((await client.closed).code, 1001, 'closed by the generation that accepted it')
  },
)

void t.test(
  'a WebSocket whose handshake completes during shutdown is closed with 1001',
  async (t) => {
    let release: () => void = () => undefined
    let held = 0
    const server = new WebSocketServer({
      port: 0,
      host: '127.0.0.1',
      verifyClient: (_info, done: (result: boolean) => void) => {
        held++
        release = () => done(true)
      },
    })
    await new Promise<void>((resolve) => server.once('listening', () => resolve()))
    t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())))
    const { port } = server.address() as AddressInfo
    const gateway = await startFoundationGateway(t, {
      upstream: { url: `http://127.0.0.1:${port}`, agentos_version: '2.9' },
      auth: { deny_unmapped_routes: false },
    })
    const opening = WsClient.open(t, wsUrl(gateway, '/held'))
    await waitFor(() => held === 1, 'the upgrade to reach the upstream')
    const stopping = gateway.stop()
    // Shutdown has closed what was open (nothing yet) before the handshake completes.
    await new Promise((resolve) => setImmediate(resolve))
    release()
    const client = await opening
    await within(stopping, 'shutdown', 30_000)
    t.equal((await client.closed).code, 1001)
  },
)
