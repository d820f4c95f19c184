import t from 'tap'
import { FailedLookupThrottle } from '../../../src/service-accounts/failed-lookup-throttle.js'

const options = { maxFailures: 20, windowSeconds: 60, maxClients: 100 }

/** A key is limited while a failure from it would be told to wait. */
const limited = (throttle: FailedLookupThrottle, key: string, nowMs: number): boolean =>
  throttle.retryAfterSeconds(key, nowMs) > 0

void t.test('20 failures in the window limit the key until the oldest ages out', async (t) => {
  const throttle = new FailedLookupThrottle(options)
  for (let second = 0; second < 20; second += 1) {
    t.notOk(limited(throttle, 'a', second * 1000))
    throttle.recordFailure('a', second * 1000)
  }
  t.ok(limited(throttle, 'a', 19_000))
  t.equal(throttle.retryAfterSeconds('a', 19_000), 41, 'the failure at 0 s leaves at 60 s')
  t.equal(throttle.retryAfterSeconds('a', 59_500), 1)
  t.ok(limited(throttle, 'a', 59_999))
  t.notOk(limited(throttle, 'a', 60_000), 'one slot free again')
  t.equal(throttle.retryAfterSeconds('a', 60_000), 0)
  throttle.recordFailure('a', 60_000)
  t.ok(limited(throttle, 'a', 60_000))
  t.equal(throttle.retryAfterSeconds('a', 60_000), 1, 'next leaves at 61 s')
  t.notOk(limited(throttle, 'b', 60_000), 'other keys are unaffected')
})

void t.test('failures below the threshold never limit', async (t) => {
  const throttle = new FailedLookupThrottle(options)
  let limitedTimes = 0
  for (let index = 0; index < 100; index += 1) {
    throttle.recordFailure('slow', index * 4_000)
    if (limited(throttle, 'slow', index * 4_000)) limitedTimes += 1
  }
  t.equal(limitedTimes, 0, 'one failure per 4 s stays at 15 a minute')
})

void t.test(
  'memory is bounded: at most maxClients keys, each at most maxFailures times',
  async (t) => {
    const throttle = new FailedLookupThrottle(options)
    for (let index = 0; index < 10_000; index += 1) throttle.recordFailure(`client-${index}`, 0)
    t.equal(throttle.trackedClients, 100)
    t.notOk(limited(throttle, 'client-0', 0), 'an evicted key starts afresh')
    for (let index = 0; index < 1_000; index += 1) throttle.recordFailure('busy', index)
    t.ok(limited(throttle, 'busy', 1_000))
    t.equal(throttle.retryAfterSeconds('busy', 1_000), 60, 'only the newest failures are kept')
  },
)

void t.test('a limited key may cause only a few lookups per second', async (t) => {
  const throttle = new FailedLookupThrottle({ ...options, limitedLookupsPerSecond: 2 })
  for (let n = 0; n < 5; n++)
    t.equal(throttle.lookupRetryAfter('a', 0), 0, 'not limited: every lookup')
  for (let n = 0; n < 20; n++) throttle.recordFailure('a', 100)
  t.equal(throttle.lookupRetryAfter('a', 1_000), 0)
  t.equal(throttle.lookupRetryAfter('a', 1_500), 0)
  t.equal(
    throttle.lookupRetryAfter('a', 1_999),
    throttle.retryAfterSeconds('a', 1_999),
    'the third in one second is refused, told when the window drains',
  )
  t.equal(throttle.lookupRetryAfter('a', 1_999), 59, 'the failures at 0.1 s leave at 60.1 s')
  t.equal(throttle.lookupRetryAfter('b', 1_999), 0, 'another key is not affected')
  t.equal(throttle.lookupRetryAfter('a', 2_000), 0, 'a new second')
  t.equal(throttle.lookupRetryAfter('a', 60_100), 0, 'the window drained: no bound')
  const unbounded = new FailedLookupThrottle({ ...options, limitedLookupsPerSecond: 0 })
  for (let n = 0; n < 20; n++) unbounded.recordFailure('a', 0)
  for (let n = 0; n < 10; n++) {
    t.equal(unbounded.lookupRetryAfter('a', 0), 0, '0: AgentOS, every lookup')
  }
})
