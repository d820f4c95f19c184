import t from 'tap'
import { createLogger } from '../../../src/logger.js'
import { AuditRetention } from '../../../src/service-accounts/audit-retention.js'
import { newEvent } from '../../contract/service-account-store.js'
import { FakeClock, FakeTimers } from '../../helpers/fake-time.js'
import { LogCapture } from '../../helpers/log-capture.js'
import { MemoryServiceAccountStore } from '../../helpers/memory-store.js'
import { waitFor } from '../../helpers/wait.js'

const DAY = 86_400_000
const HOUR = 3_600_000

function retention(days = 7) {
  const clock = new FakeClock(100 * DAY)
  const timers = new FakeTimers(clock)
  const store = new MemoryServiceAccountStore()
  const logs = new LogCapture()
  const runner = new AuditRetention({
    store,
    retentionDays: days,
    batchSize: 2,
    clock,
    timers,
    logger: createLogger({ level: 'info', destination: logs }),
  })
  return { clock, timers, store, logs, runner }
}

void t.test('a failed run is logged and retried an hour later, then daily again', async (t) => {
  const { clock, timers, store, logs, runner } = retention()
  await store.appendEvents([newEvent({ occurredAt: 90 * DAY }), newEvent({ occurredAt: 95 * DAY })])
  store.available = false
  runner.start()
  await waitFor(() => timers.pending === 1, 'the failed run to schedule a retry')
  t.equal(timers.nextDelay, HOUR)
  t.match(logs.text, /"level":40.*could not all be removed; retrying in an hour/)
  store.available = true
  clock.advance(DAY)
  await timers.fireNext()
  await waitFor(() => timers.pending === 1, 'the retry to finish')
  t.equal(timers.nextDelay, DAY)
  t.match(await store.eventsAfter(0, 10), [
    { seq: 2, occurredAt: 95 * DAY },
    { seq: 3, type: 'prune', details: { removed: 1, cutoff: 94 * DAY } },
  ])
  await runner.stop()
  t.equal(timers.pending, 0, 'stopped: no run pending')
})

void t.test('stop waits for a run in progress and schedules none after it', async (t) => {
  const { timers, store, runner } = retention()
  let release: () => void = () => undefined
  const gate = new Promise<void>((resolve) => {
    release = resolve
  })
  const prune = store.pruneEvents.bind(store)
  store.pruneEvents = async (cutoff, draft, limit) => {
    await gate
    return prune(cutoff, draft, limit)
  }
  await store.appendEvents([newEvent({ occurredAt: 0 })])
  runner.start()
  let stopped = false
  const stopping = runner.stop().then(() => {
    stopped = true
  })
  await new Promise((resolve) => setImmediate(resolve))
  t.notOk(stopped, 'still pruning')
  release()
  await stopping
  t.equal(timers.pending, 0)
  t.match(await store.eventsAfter(0, 10), [{ type: 'prune', details: { removed: 1 } }])
})

void t.test(
  'a run removes batch after batch; a store failure midway keeps what was done',
  async (t) => {
    const { clock, timers, store, logs, runner } = retention()
    await store.appendEvents([1, 2, 3, 4, 5, 96].map((day) => newEvent({ occurredAt: day * DAY })))
    const prune = store.pruneEvents.bind(store)
    let calls = 0
    store.pruneEvents = async (cutoff, draft, limit) => {
      calls += 1
      if (calls === 2) throw new Error('the store went away')
      return prune(cutoff, draft, limit)
    }
    runner.start()
    await waitFor(() => timers.pending === 1, 'the failed run to schedule a retry')
    t.equal(timers.nextDelay, HOUR)
    t.match(
      logs.text,
      /"level":40.*"removed":2,"batches":1,"through":2,.*could not all be removed; retrying in an hour/,
    )
    t.match(await store.eventsAfter(0, 10), [{ seq: 3 }, {}, {}, {}, { seq: 7, type: 'prune' }])
    clock.advance(HOUR)
    await timers.fireNext()
    await waitFor(() => timers.pending === 1, 'the retry to finish')
    t.equal(timers.nextDelay, DAY)
    t.match(await store.eventsAfter(0, 10), [
      { seq: 6, occurredAt: 96 * DAY },
      { seq: 7, type: 'prune', details: { first_seq: 1, last_seq: 2 } },
      { seq: 8, type: 'prune', details: { first_seq: 3, last_seq: 4 } },
      { seq: 9, type: 'prune', details: { removed: 1, first_seq: 5, last_seq: 5 } },
    ])
    t.match(
      logs.text,
      /"removed":3,"batches":2,"through":5,.*"msg":"audit events past the retention removed/,
    )
    await runner.stop()
  },
)

void t.test('stopped between batches: the run ends after the batch in progress', async (t) => {
  const { timers, store, logs, runner } = retention()
  await store.appendEvents([1, 2, 3, 4, 5].map((day) => newEvent({ occurredAt: day * DAY })))
  const prune = store.pruneEvents.bind(store)
  let calls = 0
  let stopping: Promise<void> | undefined
  store.pruneEvents = async (cutoff, draft, limit) => {
    calls += 1
    const event = await prune(cutoff, draft, limit)
    stopping ??= runner.stop()
    return event
  }
  runner.start()
  await waitFor(() => stopping !== undefined, 'the first batch')
  await stopping
  t.equal(calls, 1, 'no batch after the stop')
  t.equal(timers.pending, 0, 'no run scheduled')
  t.match(await store.eventsAfter(0, 10), [{ seq: 3 }, {}, {}, { seq: 6, type: 'prune' }])
  t.match(
    logs.text,
    /"removed":2,"batches":1,"through":2,.*partly removed before shutdown; the prune events record them, the next run removes the rest/,
  )
})
