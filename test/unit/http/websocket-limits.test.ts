/** WebSocket admission without sockets: slots in total and per client address, given back on close. */
import { EventEmitter } from 'node:events'
import type { Duplex } from 'node:stream'
import t from 'tap'
import { WebSocketAdmission } from '../../../src/http/websocket-limits.js'
import { thrownBy } from '../../helpers/thrown.js'

/** Enough of a socket: it closes once, and may already be destroyed. */
class FakeSocket extends EventEmitter {
  destroyed = false
  close(): void {
    this.destroyed = true
    this.emit('close')
  }
}
const socket = (): FakeSocket & Duplex => new FakeSocket() as FakeSocket & Duplex

void t.test('a client over its share: 429; the gateway full: 503', async (t) => {
  const admission = new WebSocketAdmission({ maxConnections: 3, maxPerClient: 2 })
  const held = [socket(), socket()]
  for (const each of held) admission.admit('198.51.100.1', each)
  t.match(
    thrownBy(() => admission.admit('198.51.100.1', socket())),
    {
      status: 429,
      reason: 'websocket.client_limit',
    },
  )
  admission.admit('198.51.100.2', socket())
  t.equal(admission.size, 3)
  t.match(
    thrownBy(() => admission.admit('198.51.100.3', socket())),
    {
      status: 503,
      reason: 'websocket.capacity',
    },
  )
  held[0]?.close()
  t.equal(admission.size, 2, 'a closed socket gives its slot back')
  t.doesNotThrow(() => admission.admit('198.51.100.1', socket()))
})

void t.test('an IPv6 /64 is one client, as the throttle counts it', async (t) => {
  const admission = new WebSocketAdmission({ maxConnections: 10, maxPerClient: 1 })
  admission.admit('2001:db8:1:2::1', socket())
  t.match(
    thrownBy(() => admission.admit('2001:db8:1:2::ffff', socket())),
    { status: 429 },
  )
  t.doesNotThrow(() => admission.admit('2001:db8:1:3::1', socket()), 'another /64')
  admission.admit('198.51.100.7', socket())
  t.match(
    thrownBy(() => admission.admit('::ffff:198.51.100.7', socket())),
    { status: 429 },
  )
})

void t.test('a slot is given back once, and at once for a socket already gone', async (t) => {
  const admission = new WebSocketAdmission({ maxConnections: 2, maxPerClient: 2 })
  const twice = socket()
  admission.admit('198.51.100.1', twice)
  twice.close()
  twice.emit('close')
  t.equal(admission.size, 0, 'not below zero')
  const gone = socket()
  gone.destroyed = true
  admission.admit('198.51.100.1', gone)
  t.equal(admission.size, 0, 'destroyed during the handshake: released right away')
  gone.emit('close')
  t.equal(admission.size, 0, 'its close event later gives nothing back twice')
  const held = [socket(), socket()]
  for (const each of held) admission.admit('198.51.100.1', each)
  t.match(
    thrownBy(() => admission.admit('198.51.100.1', socket())),
    { status: 503 },
    'the count is still exact: two slots, two held',
  )
})
