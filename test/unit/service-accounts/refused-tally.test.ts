import t from 'tap'
import type { NewAuditEvent } from '../../../src/service-accounts/audit-event.js'
import { RefusedTally } from '../../../src/service-accounts/refused-tally.js'
import { FakeClock } from './verifier-fixture.js'

function fixture(maxOpen = 100) {
  const clock = new FakeClock()
  const events: NewAuditEvent[] = []
  const tally = new RefusedTally({
    windowMs: 60_000,
    maxOpen,
    clock,
    emit: (event) => events.push(event),
  })
  let n = 0
  const request = (clientAddress = '198.51.100.1', userAgent = 'curl/8.5.0') => ({
    clientAddress,
    requestId: `req-${++n}`,
    headers: { 'user-agent': userAgent },
  })
  return { clock, events, tally, request }
}

const bot = { id: 'id-1', name: 'bot' }

/** Each closed window as its reason, address, account name and count. */
const windows = (events: readonly NewAuditEvent[]) =>
  events.map((event) => [
    event.details.reason,
    event.clientAddress,
    event.accountName,
    event.details.count,
  ])

void t.test(
  'refusals of one address, reason and account become one event per window',
  async (t) => {
    const { clock, events, tally, request } = fixture()
    const start = clock.wallMs
    for (let index = 0; index < 1_000; index += 1) {
      tally.add('unknown', undefined, request())
      clock.advance(10)
    }
    tally.closeDue(false)
    t.same(events, [], 'the window is still open')
    clock.advance(50_000)
    tally.closeDue(false)
    t.equal(events.length, 1)
    t.match(events[0], {
      type: 'refused',
      occurredAt: start,
      actorKind: null,
      actor: null,
      accountId: null,
      accountName: null,
      clientAddress: '198.51.100.1',
      requestId: 'req-1',
      details: {
        reason: 'unknown',
        count: 1_000,
        first_at: start,
        last_at: start + 9_990,
        client_class: 'curl',
      },
    })
    t.equal(tally.openWindows, 0)
  },
)

void t.test('each address, reason and account has a window of its own', async (t) => {
  const { events, tally, request } = fixture()
  tally.add('unknown', undefined, request())
  tally.add('unknown', undefined, request('198.51.100.2'))
  tally.add('revoked', bot, request())
  tally.add('expired', bot, request())
  tally.add('revoked', { id: 'id-2', name: 'other' }, request())
  tally.add('revoked', bot, request())
  t.equal(tally.openWindows, 5)
  tally.closeDue(true)
  t.same(windows(events), [
    ['unknown', '198.51.100.1', null, 1],
    ['unknown', '198.51.100.2', null, 1],
    ['revoked', '198.51.100.1', 'bot', 2],
    ['expired', '198.51.100.1', 'bot', 1],
    ['revoked', '198.51.100.1', 'other', 1],
  ])
})

void t.test('refusals taking turns each count in their own window', async (t) => {
  const { events, tally, request } = fixture()
  const other = { id: 'id-2', name: 'other' }
  // The same address, reason and account in a row, then another, again and again: a key kept from
  // the last refusal must follow every change, whichever part changed.
  const turns = [
    ['unknown', undefined, '198.51.100.1'],
    ['unknown', undefined, '198.51.100.1'],
    ['unknown', undefined, '198.51.100.2'],
    ['revoked', bot, '198.51.100.2'],
    ['revoked', other, '198.51.100.2'],
    ['revoked', other, '198.51.100.2'],
    ['unknown', undefined, '198.51.100.1'],
  ] as const
  for (let round = 0; round < 3; round += 1) {
    for (const [reason, account, address] of turns) tally.add(reason, account, request(address))
  }
  tally.closeDue(true)
  t.same(windows(events), [
    ['unknown', '198.51.100.1', null, 9],
    ['unknown', '198.51.100.2', null, 3],
    ['revoked', '198.51.100.2', 'bot', 3],
    ['revoked', '198.51.100.2', 'other', 6],
  ])
})

void t.test('a refusal after its window ended opens the next one', async (t) => {
  const { clock, events, tally, request } = fixture()
  tally.add('unknown', undefined, request())
  clock.advance(60_000)
  tally.add('unknown', undefined, request())
  t.equal(events.length, 1, 'the ended window was closed first')
  t.equal(events[0]?.details.count, 1)
  t.equal(tally.openWindows, 1)
})

void t.test('past its bound the oldest window closes early', async (t) => {
  const { events, tally, request } = fixture(2)
  tally.add('unknown', undefined, request('192.0.2.1'))
  tally.add('unknown', undefined, request('192.0.2.2'))
  tally.add('unknown', undefined, request('192.0.2.3'))
  t.equal(tally.openWindows, 2)
  t.same(
    events.map((event) => event.clientAddress),
    ['192.0.2.1'],
  )
})
