import { randomUUID } from 'node:crypto'
import t from 'tap'
import { Registry } from 'prom-client'
import { createLogger } from '../../../src/logger.js'
import type {
  AccountUse,
  AuditEventType,
  NewAuditEvent,
} from '../../../src/service-accounts/audit-event.js'
import { AuditQueue, type QueuedAudit } from '../../../src/service-accounts/audit-queue.js'
import { createAuditMetrics } from '../../../src/service-accounts/metrics.js'
import { StoreUnavailableError } from '../../../src/service-accounts/store-errors.js'
import { LogCapture } from '../../helpers/log-capture.js'
import { metricValue } from '../../helpers/metrics.js'

/** A store that records each batch and fails while `down`; `hold` keeps the next write open. */
class FakeStore {
  readonly batches: { events: string[]; uses: string[] }[] = []
  down = false
  #held: Promise<void> | undefined

  /** The next write waits until the returned function is called. */
  hold(): () => void {
    let release = (): void => undefined
    this.#held = new Promise((resolve) => {
      release = resolve
    })
    return release
  }

  appendEvents = async (
    events: readonly NewAuditEvent[],
    uses: readonly AccountUse[] = [],
  ): Promise<never[]> => {
    const held = this.#held
    this.#held = undefined
    await held
    if (this.down) throw new StoreUnavailableError('the store is down')
    this.batches.push({
      events: events.map((event) => String(event.requestId)),
      uses: uses.map((use) => use.requestId),
    })
    return []
  }

  get written(): string[] {
    return this.batches.flatMap((batch) => [...batch.events, ...batch.uses])
  }
}

function event(name: string, type: AuditEventType = 'throttled'): NewAuditEvent {
  return {
    id: randomUUID(),
    occurredAt: 1,
    type,
    actorKind: null,
    actor: null,
    accountId: null,
    accountName: null,
    clientAddress: '198.51.100.1',
    requestId: name,
    details: {},
  }
}

function use(name: string): AccountUse {
  return {
    kind: 'use',
    accountId: 'a',
    accountName: 'bot',
    clientAddress: '198.51.100.1',
    requestId: name,
    occurredAt: 1,
    clientClass: 'curl',
  }
}

function fixture(options: { maxEvents?: number; batchSize?: number } = {}) {
  const store = new FakeStore()
  const logs = new LogCapture()
  const registry = new Registry()
  const holder: { queue?: AuditQueue } = {}
  const metrics = createAuditMetrics(registry, () => holder.queue?.depth ?? 0)
  const queue = new AuditQueue({
    store,
    maxEvents: options.maxEvents ?? 100,
    batchSize: options.batchSize ?? 100,
    logger: createLogger({ level: 'info', destination: logs }),
    metrics,
  })
  holder.queue = queue
  const metric = async (name: string, labels: Record<string, string> = {}) =>
    metricValue(await registry.metrics(), name, labels)
  const enqueue = (...items: QueuedAudit[]) => {
    for (const item of items) queue.enqueue(item)
  }
  return { store, logs, queue, metric, enqueue }
}

void t.test('a flush writes everything queued, a batch per transaction, in order', async (t) => {
  const { store, queue, enqueue, metric } = fixture({ batchSize: 3 })
  enqueue(event('e1'), use('u1'), event('r1', 'refused'), event('e2'), event('r2', 'refused'))
  enqueue(use('u2'), event('e3'))
  t.equal(queue.depth, 7)
  t.equal(await metric('portcullis_audit_queue_depth'), 7)
  await queue.flush()
  t.same(store.batches, [
    { events: ['e1', 'r1'], uses: ['u1'] },
    { events: ['e2', 'r2'], uses: ['u2'] },
    { events: ['e3'], uses: [] },
  ])
  t.equal(queue.depth, 0)
  await queue.flush()
  t.equal(store.batches.length, 3, 'nothing more to write')
})

void t.test('while the store is down events wait, then are written when it returns', async (t) => {
  const { store, queue, enqueue, metric, logs } = fixture({ batchSize: 2 })
  enqueue(event('e1'), event('e2'), event('e3'))
  store.down = true
  await queue.flush()
  await queue.flush()
  t.equal(queue.depth, 3, 'nothing lost')
  t.equal(await metric('portcullis_audit_write_failures_total'), 2)
  const warnings = logs.records().filter((line) => line.level === 40)
  t.equal(warnings.length, 1, 'one warning per outage')
  t.match(warnings[0], { audit_events: 3, err: { message: 'the store is down' } })
  enqueue(event('e4'))
  store.down = false
  await queue.flush()
  t.same(store.written, ['e1', 'e2', 'e3', 'e4'], 'in order, the waiting ones first')
  t.equal(queue.depth, 0)
  t.match(logs.records().at(-1), { level: 30, msg: 'audit events are written again' })
})

void t.test('a full queue drops the oldest refused events first, then the oldest', async (t) => {
  const { store, queue, enqueue, metric } = fixture({ maxEvents: 3 })
  enqueue(event('e1'), event('r1', 'refused'), event('e2'))
  enqueue(event('r2', 'refused'))
  t.equal(queue.depth, 3)
  t.equal(await metric('portcullis_audit_events_dropped_total', { type: 'refused' }), 1)
  enqueue(event('e3'))
  t.equal(await metric('portcullis_audit_events_dropped_total', { type: 'refused' }), 2)
  enqueue(use('u1'))
  t.equal(await metric('portcullis_audit_events_dropped_total', { type: 'throttled' }), 1)
  enqueue(event('m1', 'rotation'))
  t.equal(
    await metric('portcullis_audit_events_dropped_total', { type: 'throttled' }),
    2,
    'no refused left: the oldest of any type',
  )
  enqueue(event('e4'))
  t.equal(await metric('portcullis_audit_events_dropped_total', { type: 'throttled' }), 3)
  enqueue(use('u2'))
  t.equal(
    await metric('portcullis_audit_events_dropped_total', { type: 'use_from_new_address' }),
    1,
    'a use counts as the event it may become',
  )
  enqueue(event('r3', 'refused'))
  t.equal(
    await metric('portcullis_audit_events_dropped_total', { type: 'refused' }),
    3,
    'a refused event goes before any other, even the newest',
  )
  t.equal(queue.depth, 3)
  await queue.flush()
  t.same(store.written, ['m1', 'e4', 'u2'])
})

void t.test('a batch that failed goes back in front and counts against the bound', async (t) => {
  const { store, queue, enqueue, metric } = fixture({ maxEvents: 3, batchSize: 2 })
  enqueue(event('r1', 'refused'), event('e1'))
  store.down = true
  const release = store.hold()
  const flushing = queue.flush()
  t.equal(queue.depth, 0, 'the batch is being written')
  enqueue(event('e2'), event('e3'), event('r2', 'refused'))
  release()
  await flushing
  t.equal(queue.depth, 3)
  t.equal(await metric('portcullis_audit_events_dropped_total', { type: 'refused' }), 2)
  store.down = false
  await queue.flush()
  t.same(store.written, ['e1', 'e2', 'e3'], 'back in front, older than what came meanwhile')
})

void t.test('a flush asked for during one joins it', async (t) => {
  const { store, queue, enqueue } = fixture()
  enqueue(event('e1'))
  const release = store.hold()
  const first = queue.flush()
  const second = queue.flush()
  t.equal(first, second)
  enqueue(event('e2'))
  release()
  await first
  t.same(store.written, ['e1', 'e2'], 'what came meanwhile is written by the same flush')
})

void t.test('closing runs the hooks as the last flush and writes everything', async (t) => {
  const { store, queue, enqueue } = fixture({ batchSize: 1 })
  const hooks: boolean[] = []
  queue.beforeFlush((closing) => {
    hooks.push(closing)
    if (closing) queue.enqueue(event('held-until-close'))
  })
  enqueue(event('e1'))
  await queue.flush()
  enqueue(event('e2'), use('u1'))
  const release = store.hold()
  const flushing = queue.flush()
  const closing = queue.close()
  release()
  await Promise.all([flushing, closing])
  t.same(hooks, [false, false, true])
  t.same(store.written, ['e1', 'e2', 'u1', 'held-until-close'])
  t.equal(queue.depth, 0)
})

void t.test('what the store refuses at close is dropped, counted and logged', async (t) => {
  const { store, queue, enqueue, metric, logs } = fixture()
  enqueue(event('r1', 'refused'), event('e1'), use('u1'))
  store.down = true
  await queue.close()
  t.equal(queue.depth, 0)
  t.equal(await metric('portcullis_audit_events_dropped_total', { type: 'refused' }), 1)
  t.equal(await metric('portcullis_audit_events_dropped_total', { type: 'throttled' }), 1)
  t.equal(
    await metric('portcullis_audit_events_dropped_total', { type: 'use_from_new_address' }),
    1,
  )
  t.match(logs.records().at(-1), {
    level: 50,
    audit_events: 3,
    msg: 'audit events could not be written before stopping; dropped',
  })
})

void t.test('started, it flushes on its own until closed', async (t) => {
  const { store, queue, enqueue } = fixture()
  let flushed: () => void = () => undefined
  const hooked = new Promise<void>((resolve) => {
    flushed = resolve
  })
  queue.beforeFlush((closing) => {
    if (!closing) flushed()
  })
  enqueue(event('e1'))
  queue.start(10)
  queue.start(10)
  // The queue's timer does not hold the process open; this one does until the flush came.
  const alive = setInterval(() => undefined, 1_000)
  await hooked
  clearInterval(alive)
  await queue.flush()
  t.same(store.written, ['e1'])
  await queue.close()
})
