/** The WebSocket handshake without sockets: what is an upgrade the gateway accepts, and the offer. */
import type { IncomingMessage } from 'node:http'
import t from 'tap'
import { assertWebSocketUpgrade, offeredProtocols } from '../../../src/http/websocket-handshake.js'

const VALID = {
  upgrade: 'websocket',
  'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
  'sec-websocket-version': '13',
}

function handshake(headers: Record<string, string | undefined>, method = 'GET'): IncomingMessage {
  return { method, headers } as unknown as IncomingMessage
}

function refusal(req: IncomingMessage): unknown {
  try {
    assertWebSocketUpgrade(req)
  } catch (error) {
    return error
  }
  return undefined
}

void t.test('a WebSocket handshake passes, in any case of the Upgrade token', async (t) => {
  t.equal(refusal(handshake(VALID)), undefined)
  t.equal(refusal(handshake({ ...VALID, upgrade: 'WebSocket' })), undefined)
})

void t.test('any other upgrade is never tunnelled', async (t) => {
  for (const upgrade of ['h2c', 'websocket, h2c', 'TLS/1.2', undefined]) {
    t.match(
      refusal(handshake({ ...VALID, upgrade })),
      { reason: 'upgrade.protocol', detail: /only WebSocket upgrades/ },
      String(upgrade),
    )
  }
})

void t.test('a WebSocket upgrade that is not a valid handshake is refused', async (t) => {
  const invalid: [string, IncomingMessage][] = [
    ['POST', handshake(VALID, 'POST')],
    ['no key', handshake({ ...VALID, 'sec-websocket-key': undefined })],
    ['version 8', handshake({ ...VALID, 'sec-websocket-version': '8' })],
    ['no version', handshake({ ...VALID, 'sec-websocket-version': undefined })],
  ]
  for (const [why, req] of invalid) {
    t.match(
      refusal(req),
      { reason: 'upgrade.handshake', detail: 'Invalid WebSocket handshake' },
      why,
    )
  }
})

void t.test('offered subprotocols: every line, in order, blanks dropped', async (t) => {
  t.same(offeredProtocols({ headers: {} }), [])
  t.same(offeredProtocols({ headers: { 'sec-websocket-protocol': ' a, ,b ,c' } }), ['a', 'b', 'c'])
})
