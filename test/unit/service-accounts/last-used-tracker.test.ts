import t from 'tap'
import { LastUsedTracker } from '../../../src/service-accounts/last-used-tracker.js'

void t.test('a write is due once per interval per account', async (t) => {
  const tracker = new LastUsedTracker({ intervalSeconds: 60, maxAccounts: 10 })
  t.ok(tracker.claim('a', 1_000))
  t.notOk(tracker.claim('a', 60_999))
  t.ok(tracker.claim('b', 60_999), 'accounts are independent')
  t.ok(tracker.claim('a', 61_000))
  t.notOk(tracker.claim('a', 61_001))
})

void t.test('a fractional clock never shortens the interval', async (t) => {
  const tracker = new LastUsedTracker({ intervalSeconds: 1, maxAccounts: 10 })
  t.ok(tracker.claim('a', 10.5))
  t.notOk(tracker.claim('a', 1_010.4))
  t.ok(tracker.claim('a', 1_011))
})

void t.test('interval 0: every use is written', async (t) => {
  const tracker = new LastUsedTracker({ intervalSeconds: 0, maxAccounts: 10 })
  t.ok(tracker.claim('a', 5))
  t.ok(tracker.claim('a', 5))
})

void t.test('beyond its bound it forgets the accounts written longest ago', async (t) => {
  const tracker = new LastUsedTracker({ intervalSeconds: 60, maxAccounts: 2 })
  t.ok(tracker.claim('a', 0))
  t.ok(tracker.claim('b', 1))
  t.ok(tracker.claim('c', 2), 'a is forgotten')
  t.notOk(tracker.claim('b', 3), 'b is still remembered')
  t.ok(tracker.claim('a', 4), 'a was forgotten: one early write')
})
