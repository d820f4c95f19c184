/**
 * Attack class 14 — repeated header values, first vs last (Envoy CVE-2021-32777): two
 * Authorization headers, two cookie tokens, two `bearer` subprotocols, and a header with a cookie.
 * Duplicates are refused with 400 before anything is verified; with `token_source: both` the
 * header wins deterministically (AgentOS's documented order) and a failing header never falls
 * back to the cookie. Corpora malformed-authorization.txt and credential-sources.txt, over HTTP,
 * a relayed WebSocket and the workflow WebSocket the gateway terminates.
 */
import t, { type Test } from 'tap'
import { startRuntime } from '../helpers/runtime.js'
import { WsClient } from '../helpers/websocket.js'
import { now } from '../conformance/fixtures.js'
import {
  bearer,
  corpus,
  jwt,
  refused,
  securedGateway,
  send,
  upgrade,
  type Sent,
} from './harness.js'

const runtime = await startRuntime(t)
const header = await securedGateway(t, runtime)
const both = await securedGateway(t, runtime, { auth: { token_source: 'both' } })
const terminated = await securedGateway(t, runtime, {
  auth: { token_source: 'both' },
  interfaces: { workflow_websocket: { enabled: true } },
})
const tokens: Record<string, string> = {
  alice: await jwt(['agents:read'], { sub: 'alice' }),
  bob: await jwt(['agents:read'], { sub: 'bob' }),
  expired: await jwt(['agents:read'], { sub: 'alice', exp: now() - 3600 }),
}
const fill = (text: string) => text.replace(/\{(\w+)\}/g, (_m, name: string) => tokens[name] ?? '')

function judge(t: Test, sent: Sent, expected: string, label: string, socket: boolean): void {
  if (/^\d+$/.test(expected)) {
    refused(t, sent, Number(expected), undefined, label)
    return
  }
  t.equal(sent.status, socket ? 101 : 200, label)
  const seen = socket
    ? sent.sockets[0]?.headers['x-auth-user-id']
    : sent.upstream[0]?.headers['x-auth-user-id']
  t.equal(seen, expected, `${label}: forwarded as ${expected}`)
  const cookie = socket ? sent.sockets[0]?.headers.cookie : sent.upstream[0]?.headers.cookie
  t.notMatch(String(cookie), /access_token=/, `${label}: the JWT cookie is not forwarded`)
}

for (const [file, gateway] of [
  ['malformed-authorization.txt', header],
  ['credential-sources.txt', both],
] as const) {
  void t.test(`${file}: HTTP and a relayed WebSocket`, async (t) => {
    for (const [lines = '', expected = '', why = ''] of corpus(file)) {
      const head = fill(lines).split('\n')
      judge(
        t,
        await send(gateway, runtime, 'GET', '/agents/a1', head),
        expected,
        `HTTP: ${why}`,
        false,
      )
      const ws = await upgrade(gateway, runtime, '/ws/echo', head)
      judge(t, ws, expected, `WebSocket: ${why}`, true)
    }
  })
}

void t.test('the workflow WebSocket refuses duplicates before the handshake', async (t) => {
  for (const [lines = '', expected = '', why = ''] of corpus('credential-sources.txt')) {
    if (expected !== '400') continue
    refused(
      t,
      await upgrade(terminated, runtime, '/workflows/ws', fill(lines).split('\n')),
      400,
      'Multiple credentials in one request',
      why,
    )
  }
})

void t.test('bearer subprotocols: one pair at most; the header still comes first', async (t) => {
  const offer = (...protocols: string[]) => `Sec-WebSocket-Protocol: ${protocols.join(', ')}`
  const twice = offer('bearer', tokens.alice as string, 'bearer', tokens.bob as string)
  refused(
    t,
    await upgrade(both, runtime, '/ws/echo', [twice]),
    400,
    'Multiple credentials in one request',
  )
  refused(
    t,
    await upgrade(terminated, runtime, '/workflows/ws', [twice]),
    400,
    'Multiple credentials in one request',
    'workflow WebSocket',
  )
  const mixed = await upgrade(both, runtime, '/ws/echo', [
    offer('bearer', tokens.alice as string),
    bearer(tokens.bob as string),
  ])
  judge(t, mixed, 'bob', 'header and subprotocol', true)
  // Regression: the unused pair went upstream with its token when the header was used instead.
  t.equal(
    mixed.sockets[0]?.headers['sec-websocket-protocol'],
    undefined,
    'the pair is not offered upstream',
  )
  t.match(mixed.headers['sec-websocket-protocol'], 'bearer', 'the client is answered with bearer')
  const failing = await upgrade(both, runtime, '/ws/echo', [
    offer('bearer', tokens.alice as string),
    bearer('garbage'),
  ])
  refused(t, failing, 401, undefined, 'a failing header never falls back to the subprotocol')
})

void t.test(
  'in band: a workflow socket authenticates once per frame, never with a fallback',
  async (t) => {
    const client = await WsClient.open(
      t,
      `${terminated.url.replace('http', 'ws')}/workflows/ws`,
      [],
      {
        authorization: 'Bearer garbage',
        cookie: `access_token=${tokens.bob as string}`,
      },
    )
    t.match(JSON.parse(String((await client.next()).data)), { event: 'connected' })
    t.match(
      JSON.parse(String((await client.next()).data)),
      { event: 'auth_error' },
      'the header failed; no cookie fallback',
    )
    client.socket.send(JSON.stringify({ action: 'ping' }))
    t.match(JSON.parse(String((await client.next()).data)), { event: 'auth_required' })
  },
)

void t.test(
  'two Content-Type fields: the body would be read by the first or the last',
  async (t) => {
    // Regression: the gateway pinned by the first, a last-wins parser upstream read the other.
    const body = JSON.stringify({ user_id: 'victim' })
    for (const [first, second] of [
      ['text/plain', 'application/json'],
      ['application/json', 'application/json'],
    ]) {
      const lines = [
        bearer(tokens.alice as string),
        `Content-Type: ${first}`,
        `content-type: ${second}`,
      ]
      refused(
        t,
        await send(header, runtime, 'POST', '/sessions', lines, body),
        400,
        'Bad Request',
        `${first} + ${second}`,
      )
    }
  },
)
