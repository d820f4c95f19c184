import t from 'tap'
import { LastUsedTracker } from '../../../src/service-accounts/last-used-tracker.js'

const tracker = (intervalSeconds: number, maxAccounts = 10, maxAddresses = 10): LastUsedTracker =>
  new LastUsedTracker({ intervalSeconds, maxAccounts, maxAddresses })

void t.test('last_used_at is due once per interval per account', async (t) => {
  const uses = tracker(60)
  t.equal(uses.claim('a', 'x', 1_000), 'both')
  t.equal(uses.claim('a', 'x', 60_999), 'none')
  t.equal(uses.claim('b', 'x', 60_999), 'both', 'accounts are independent')
  t.equal(uses.claim('a', 'x', 61_000), 'both')
  t.equal(uses.claim('a', 'x', 61_001), 'none')
})

void t.test(
  'an address is due once per interval per account, apart from last_used_at',
  async (t) => {
    const uses = tracker(60)
    t.equal(uses.claim('a', 'x', 0), 'both')
    t.equal(uses.claim('a', 'y', 10), 'address', 'a second address within the interval')
    t.equal(uses.claim('a', 'y', 20), 'none')
    t.equal(uses.claim('b', 'y', 30), 'both', 'the same address on another account')
    t.equal(uses.claim('a', 'x', 60_000), 'both')
    t.equal(uses.claim('a', 'y', 60_005), 'none', 'y was written at 10')
    t.equal(uses.claim('a', 'y', 60_010), 'address')
    t.equal(uses.claim('a', 'z', 120_000), 'both')
  },
)

void t.test('a fractional clock never shortens the interval', async (t) => {
  const uses = tracker(1)
  t.equal(uses.claim('a', 'x', 10.5), 'both')
  t.equal(uses.claim('a', 'x', 1_010.4), 'none')
  t.equal(uses.claim('a', 'x', 1_011), 'both')
})

void t.test('interval 0: every use is written', async (t) => {
  const uses = tracker(0)
  t.equal(uses.claim('a', 'x', 5), 'both')
  t.equal(uses.claim('a', 'x', 5), 'both')
})

void t.test('beyond its bound it forgets the accounts written longest ago', async (t) => {
  const uses = tracker(60, 2)
  t.equal(uses.claim('a', 'x', 0), 'both')
  t.equal(uses.claim('b', 'x', 1), 'both')
  t.equal(uses.claim('c', 'x', 2), 'both', 'a is forgotten')
  t.equal(uses.claim('b', 'x', 3), 'none', 'b is still remembered')
  t.equal(uses.claim('a', 'x', 4), 'both', 'a was forgotten: one early write')
})

void t.test('an account remembers its addresses written most recently', async (t) => {
  const uses = tracker(60, 10, 2)
  t.equal(uses.claim('a', 'x', 0), 'both')
  t.equal(uses.claim('a', 'y', 1), 'address')
  t.equal(uses.claim('a', 'z', 2), 'address', 'x is forgotten')
  t.equal(uses.claim('a', 'y', 3), 'none', 'y is still remembered')
  t.equal(uses.claim('a', 'x', 4), 'address', 'x was forgotten: one early write')
})

void t.test(
  'one address, then a second and a third, with room for one or for several',
  async (t) => {
    const one = tracker(60, 10, 1)
    t.equal(one.claim('a', 'x', 0), 'both')
    t.equal(one.claim('a', 'x', 1), 'none', 'the one address is remembered')
    t.equal(one.claim('a', 'y', 2), 'address')
    t.equal(one.claim('a', 'y', 3), 'none')
    t.equal(one.claim('a', 'x', 4), 'address', 'room for one: x was forgotten for y')
    const several = tracker(60, 10, 3)
    t.equal(several.claim('b', 'x', 0), 'both')
    t.equal(several.claim('b', 'x', 60_000), 'both', 'its interval over, the address is due again')
    t.equal(several.claim('b', 'y', 60_001), 'address')
    t.equal(several.claim('b', 'x', 60_002), 'none', 'the first address kept beside the second')
    t.equal(several.claim('b', 'z', 60_003), 'address')
    t.equal(several.claim('b', 'y', 60_004), 'none')
    t.equal(several.claim('b', 'x', 120_000), 'both', 'each address keeps its own interval')
    t.equal(several.claim('b', 'y', 120_000), 'none', 'y was written after x')
  },
)
