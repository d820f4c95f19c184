import t from 'tap'
import type { NewAuditEvent } from '../../../src/service-accounts/audit-event.js'
import { ThrottleEpisodes } from '../../../src/service-accounts/throttle-episodes.js'
import { FakeClock } from './verifier-fixture.js'

function fixture(maxOpen = 100) {
  const clock = new FakeClock()
  const events: NewAuditEvent[] = []
  const episodes = new ThrottleEpisodes({ maxOpen, clock, emit: (event) => events.push(event) })
  const request = (clientAddress: string, requestId: string) => ({ clientAddress, requestId })
  return { clock, events, episodes, request }
}

const states = (events: readonly NewAuditEvent[]) =>
  events.map((event) => `${event.details.state as string} ${event.clientAddress as string}`)

void t.test('an address enters, and leaves when the throttle lets it go', async (t) => {
  const { clock, events, episodes, request } = fixture()
  const start = clock.wallMs
  episodes.entered('198.51.100.1', request('198.51.100.1', 'req-1'), 45_000, { failures: 20 })
  t.match(events[0], {
    type: 'throttled',
    occurredAt: start,
    clientAddress: '198.51.100.1',
    requestId: 'req-1',
    accountId: null,
    details: { state: 'entered', throttle_key: '198.51.100.1', failures: 20 },
  })
  clock.advance(44_999)
  episodes.closeDue(false)
  t.equal(events.length, 1, 'still limited')
  clock.advance(5_000)
  episodes.closeDue(false)
  t.match(events[1], {
    type: 'throttled',
    occurredAt: start + 45_000,
    requestId: 'req-1',
    details: { state: 'left', ending: 'window', entered_at: start, limited_ms: 45_000 },
  })
  episodes.closeDue(true)
  t.equal(events.length, 2, 'nothing left open')
})

void t.test('limited again before the flush saw it leave: left, then entered', async (t) => {
  const { clock, events, episodes, request } = fixture()
  episodes.entered('k', request('2001:db8::1', 'req-1'), 1_000, {})
  clock.advance(1_500)
  episodes.entered('k', request('2001:db8::2', 'req-2'), 1_000, {})
  t.same(states(events), ['entered 2001:db8::1', 'left 2001:db8::1', 'entered 2001:db8::2'])
  t.equal(events[1]?.details.limited_ms, 1_000)
})

void t.test('stopping ends every episode; crowded out ones end early', async (t) => {
  const { clock, events, episodes, request } = fixture(1)
  episodes.entered('a', request('a', 'req-1'), 60_000, {})
  clock.advance(10)
  episodes.entered('b', request('b', 'req-2'), 60_000, {})
  t.match(events[1], {
    clientAddress: 'a',
    details: { state: 'left', ending: 'forgotten', limited_ms: 10 },
  })
  clock.advance(20)
  episodes.closeDue(true)
  t.match(events[3], {
    clientAddress: 'b',
    details: { state: 'left', ending: 'shutdown', limited_ms: 20 },
  })
})
