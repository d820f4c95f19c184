/**
 * Resource limits for WebSockets, each bounded and each tested: open
 * connections per gateway (`server.max_websocket_connections`, 503) and per client address
 * (`server.max_websocket_connections_per_client`, 429; IPv6 by /64; the address as a trusted
 * proxy reports it), handshakes counted while in progress and bounded by
 * `upstream.connect_timeout_ms`, idle connections closed (`server.websocket_idle_timeout_ms`,
 * 1001) and frame sizes (`server.max_websocket_message_bytes`; the workflow socket's own limit),
 * over which `ws` used to buffer up to 100 MiB.
 */
import type { Socket } from 'node:net'
import t from 'tap'
import { startCustomUpstream, startRuntime } from '../helpers/runtime.js'
import { waitFor } from '../helpers/wait.js'
import { WsClient } from '../helpers/websocket.js'
import { bearer, jwt, refused, securedGateway, upgrade, wsUrl } from './harness.js'

const runtime = await startRuntime(t)
const alice = await jwt(['workflows:read', 'workflows:run'], { sub: 'alice' })
const auth = { authorization: `Bearer ${alice}` }
const open = (gateway: { url: string }, path = '/ws/echo', headers: Record<string, string> = {}) =>
  WsClient.open(t, wsUrl(gateway as Parameters<typeof wsUrl>[0], path), [], { ...auth, ...headers })

void t.test('connections per gateway: the next upgrade gets 503 until one closes', async (t) => {
  const gateway = await securedGateway(t, runtime, {
    server: { max_websocket_connections: 3, max_websocket_connections_per_client: 3 },
  })
  const clients = [await open(gateway), await open(gateway), await open(gateway)]
  refused(
    t,
    await upgrade(gateway, runtime, '/ws/echo', [bearer(alice)]),
    503,
    'Too many WebSocket connections',
  )
  refused(t, await upgrade(gateway, runtime, '/ws/echo'), 503, undefined, 'before authentication')
  clients[0]?.socket.close()
  await clients[0]?.waitClosed()
  const again = await (async () => {
    for (let attempt = 0; attempt < 50; attempt++) {
      const sent = await upgrade(gateway, runtime, '/ws/echo', [bearer(alice)])
      if (sent.status === 101) return sent
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    return undefined
  })()
  t.equal(again?.status, 101, 'a closed connection gives its slot back')
})

void t.test('connections per client address: 429, other clients unaffected', async (t) => {
  const gateway = await securedGateway(t, runtime, {
    server: { max_websocket_connections_per_client: 2, trusted_proxies: ['127.0.0.1'] },
    interfaces: { workflow_websocket: { enabled: true } },
  })
  const as = (address: string) => ({ 'x-forwarded-for': address })
  await open(gateway, '/ws/echo', as('198.51.100.1'))
  await open(gateway, '/workflows/ws', as('198.51.100.1'))
  const third = await upgrade(gateway, runtime, '/ws/echo', [
    bearer(alice),
    'X-Forwarded-For: 198.51.100.1',
  ])
  refused(
    t,
    third,
    429,
    'Too many WebSocket connections from this address',
    'relayed and terminated sockets both count',
  )
  await open(gateway, '/ws/echo', as('198.51.100.2'))
  await open(gateway, '/ws/echo', as('2001:db8:5:6::1'))
  await open(gateway, '/ws/echo', as('2001:db8:5:6::2'))
  const sameNet = await upgrade(gateway, runtime, '/ws/echo', [
    bearer(alice),
    'X-Forwarded-For: 2001:db8:5:6::3',
  ])
  refused(t, sameNet, 429, undefined, 'an IPv6 /64 is one client')
})

void t.test('a handshake in progress holds a slot, for at most connect_timeout_ms', async (t) => {
  const stalled = new Set<Socket>()
  const upstream = await startCustomUpstream(t, (_req, res) => res.end())
  upstream.server.on('upgrade', (_req, socket: Socket) => stalled.add(socket))
  t.teardown(() => stalled.forEach((socket) => socket.destroy()))
  const gateway = await securedGateway(t, runtime, {
    upstream: { url: upstream.url, connect_timeout_ms: 300 },
    server: { max_websocket_connections: 1 },
  })
  const pending = upgrade(gateway, runtime, '/ws/echo', [bearer(alice)])
  await waitFor(() => stalled.size === 1, 'the upstream handshake to start')
  refused(
    t,
    await upgrade(gateway, runtime, '/ws/echo', [bearer(alice)]),
    503,
    undefined,
    'the slot is taken',
  )
  t.equal((await pending).status, 504, 'the stalled handshake times out')
  const after = await upgrade(gateway, runtime, '/ws/echo', [bearer(alice)])
  t.equal(after.status, 504, 'and its slot is free again (this one stalls too)')
})

void t.test('an idle connection is closed with 1001; traffic keeps it open', async (t) => {
  const gateway = await securedGateway(t, runtime, {
    server: { websocket_idle_timeout_ms: 400 },
    interfaces: { workflow_websocket: { enabled: true } },
  })
  const idle = await open(gateway)
  const idleWorkflow = await open(gateway, '/workflows/ws')
  const busy = await open(gateway)
  const pinging = await open(gateway)
  const timer = setInterval(() => {
    busy.socket.send('tick')
    pinging.socket.ping()
  }, 100)
  t.teardown(() => clearInterval(timer))
  t.same(await idle.waitClosed(), { code: 1001, reason: 'idle timeout' }, 'relayed')
  t.same(await idleWorkflow.waitClosed(), { code: 1001, reason: 'idle timeout' }, 'terminated')
  t.equal(busy.socket.readyState, busy.socket.OPEN, 'frames keep a connection open')
  t.equal(pinging.socket.readyState, pinging.socket.OPEN, 'so do pings')
})

void t.test('frames above the limit close the connection (1009) and are not relayed', async (t) => {
  const gateway = await securedGateway(t, runtime, {
    server: { max_websocket_message_bytes: 4_096 },
    interfaces: { workflow_websocket: { enabled: true, max_message_bytes: 2_048 } },
  })
  runtime.clear()
  const relayed = await open(gateway)
  relayed.socket.send('x'.repeat(4_096))
  t.equal((await relayed.next()).data, 'x'.repeat(4_096), 'at the limit: relayed')
  relayed.socket.send('y'.repeat(4_097))
  t.equal((await relayed.waitClosed()).code, 1009, 'above it: closed')
  const received = runtime.wsConnections.flatMap((connection) => connection.received)
  t.notOk(
    received.some((frame) => String(frame).startsWith('y')),
    'the upstream never got it',
  )
  const workflow = await open(gateway, '/workflows/ws')
  await workflow.next()
  workflow.socket.send(JSON.stringify({ action: 'ping', pad: 'z'.repeat(2_100) }))
  t.equal((await workflow.waitClosed()).code, 1009, 'the workflow socket has its own limit')
})
