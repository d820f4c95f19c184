import t from 'tap'
import { parseEventParams } from '../../../src/service-accounts/api/event-params.js'
import { parseEventTime } from '../../../src/service-accounts/api/event-time.js'

void t.test(
  'event times: epoch seconds, a date, or an ISO 8601 date-time with a zone',
  async (t) => {
    t.equal(parseEventTime('0'), 0)
    t.equal(parseEventTime('1751371200'), 1_751_371_200_000)
    t.equal(parseEventTime('2025-07-01'), Date.UTC(2025, 6, 1))
    t.equal(parseEventTime('2025-07-01T12:00Z'), Date.UTC(2025, 6, 1, 12))
    t.equal(parseEventTime('2025-07-01t12:00:30z'), Date.UTC(2025, 6, 1, 12, 0, 30))
    t.equal(parseEventTime('2025-07-01 12:00:00.25+02:00'), Date.UTC(2025, 6, 1, 10, 0, 0, 250))
    t.equal(
      parseEventTime('2025-07-01T12:00:00.123456789-0130'),
      Date.UTC(2025, 6, 1, 13, 30, 0, 123),
    )
    t.equal(parseEventTime('2024-02-29'), Date.UTC(2024, 1, 29), 'a leap day')
    for (const bad of [
      '',
      '-1',
      '1.5',
      '2025-02-29',
      '2025-13-01',
      '2025-07-01T12:00:00',
      '2025-07-01T24:00:00Z',
      '2025-07-01T12:60:00Z',
      '2025-07-01T12:00:60Z',
      '2025-07-01T12:00:00+24:00',
      '2025-07-01T12:00:00+02:60',
      '2025-7-1',
      'yesterday',
    ]) {
      t.equal(parseEventTime(bad), undefined, JSON.stringify(bad))
    }
  },
)

void t.test('event filters: types deduplicated and trimmed, account by shape', async (t) => {
  const parsed = parseEventParams(
    new URLSearchParams('type=mint, revoke&type=mint&account=9CE4E2DE-1BDC-4C5A-A53E-F80E9A9BB447'),
    true,
  )
  t.match(parsed, {
    ok: true,
    value: {
      types: ['mint', 'revoke'],
      accountId: '9ce4e2de-1bdc-4c5a-a53e-f80e9a9bb447',
      limit: 20,
      page: 1,
      offset: 0,
    },
  })
  t.match(parseEventParams(new URLSearchParams('account=ci-bot&actor=sa:x'), true), {
    ok: true,
    value: { accountName: 'ci-bot', actor: 'sa:x' },
  })
  const ignored = parseEventParams(new URLSearchParams('account=ci-bot'), false)
  t.ok(ignored.ok && !('accountName' in ignored.value), 'the path names the account')
  const bad = parseEventParams(new URLSearchParams('limit=0&type=x&since=never&until=1.5'), true)
  t.match(bad, {
    ok: false,
    issues: [
      { type: 'greater_than_equal', loc: ['query', 'limit'] },
      { type: 'literal_error', loc: ['query', 'type', 0], input: 'x' },
      { type: 'datetime_from_date_parsing', loc: ['query', 'since'], input: 'never' },
      { type: 'datetime_from_date_parsing', loc: ['query', 'until'], input: '1.5' },
    ],
  })
})
