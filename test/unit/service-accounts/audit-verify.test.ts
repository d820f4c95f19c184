import t from 'tap'
import { chainEvents } from '../../../src/service-accounts/audit-chain.js'
import type { AuditEvent } from '../../../src/service-accounts/audit-event.js'
import { verifyChain } from '../../../src/service-accounts/audit-verify.js'
import { pruneEvent, type Removal } from '../../../src/service-accounts/prune-event.js'
import { newEvent } from '../../contract/service-account-store.js'

const reader = (events: readonly AuditEvent[]) => {
  const pages: number[] = []
  const read = async (seq: number, limit: number) => {
    pages.push(seq)
    return events.filter((event) => event.seq > seq).slice(0, limit)
  }
  return { read, pages }
}

const chain = chainEvents(
  null,
  Array.from({ length: 2_500 }, (_, index) => newEvent({ requestId: `r${index}` })),
)

void t.test('a long whole chain is read a page at a time and passes', async (t) => {
  const { read, pages } = reader(chain)
  const report = await verifyChain(read)
  t.same(pages, [0, 1_000, 2_000])
  t.same(report, {
    events: 2_500,
    head: { seq: 2_500, hash: chain.at(-1)?.hash },
    pruned: null,
    problems: [],
  })
  t.same(await verifyChain(reader([]).read), {
    events: 0,
    head: null,
    pruned: null,
    problems: [],
  })
})

void t.test('problems are reported in order, at most 100, and reading stops', async (t) => {
  const tampered = chain.map((event) =>
    event.seq % 10 === 0 ? { ...event, requestId: 'forged' } : event,
  )
  const { read, pages } = reader(tampered)
  const report = await verifyChain(read)
  t.equal(report.problems.length, 100)
  t.same(report.problems[0], { seq: 10, problem: 'changed' })
  t.same(pages, [0], 'the first page already held 100 problems')
})

/** `events` without the first `count`, and the prune event that records their removal. */
function pruned(events: readonly AuditEvent[], count: number, overrides: Partial<Removal> = {}) {
  const removedLast = events[count - 1]
  if (removedLast === undefined) throw new Error('nothing to remove')
  const removal = {
    removed: count,
    firstSeq: 1,
    lastSeq: removedLast.seq,
    lastHash: removedLast.hash,
    cutoff: 1_700_000_000_000,
    ...overrides,
  }
  const [prune] = chainEvents(events.at(-1) ?? null, [
    pruneEvent({ id: 'p', occurredAt: 1_700_000_000_001 }, removal),
  ])
  if (prune === undefined) throw new Error('no prune event')
  return [...events.slice(count), prune]
}

const short = chain.slice(0, 30)
const verify = (events: readonly AuditEvent[]) => verifyChain(reader(events).read)

void t.test('a chain whose oldest events a prune event records as removed passes', async (t) => {
  t.same(await verify(pruned(short, 10)), {
    events: 21,
    head: { seq: 31, hash: pruned(short, 10).at(-1)?.hash },
    pruned: { through: 10, by: 31, cutoff: 1_700_000_000_000 },
    problems: [],
  })
  const everything = pruned(short, 30)
  const whole = async (events: readonly AuditEvent[], what: string) => {
    const report = await verify(events)
    t.same(report.problems, [], what)
    return report
  }
  t.match(await whole(everything, 'everything removed'), {
    events: 1,
    pruned: { through: 30, by: 31 },
  })
  const twice = pruned(pruned(short, 10), 5, { firstSeq: 11 })
  t.match(
    await whole(twice, 'pruned twice'),
    { pruned: { through: 15, by: 32 } },
    'the newer prune anchors; the older one only records what it removed then',
  )
  const later = chainEvents(everything.at(-1) ?? null, [newEvent(), newEvent()])
  t.match(await whole([...everything, ...later], 'events after the prune'), { events: 3 })
})

void t.test('a pruned chain with other events removed or the prune forged fails', async (t) => {
  const after = pruned(short, 10)
  t.same(
    (await verify(after.slice(3))).problems,
    [{ seq: 14, problem: 'not_first' }],
    'more removed than the prune event records',
  )
  t.same(
    (await verify(after.filter((event) => event.seq !== 20))).problems,
    [{ seq: 21, problem: 'broken_link' }],
    'an event removed after the start',
  )
  t.same(
    (await verify(pruned(short, 10, { lastHash: 'a'.repeat(64) }))).problems,
    [{ seq: 11, problem: 'not_first' }],
    "a prune event that does not end with the start's link",
  )
  t.same(
    (await verify(pruned(short, 10, { lastSeq: 9, removed: 9 }))).problems,
    [{ seq: 11, problem: 'not_first' }],
    'a prune event that ends before the start',
  )
  const edited = after.map((event) =>
    event.type === 'prune' ? { ...event, details: { ...event.details, cutoff: 1 } } : event,
  )
  t.same(
    (await verify(edited)).problems,
    [
      { seq: 11, problem: 'not_first' },
      { seq: 31, problem: 'changed' },
    ],
    'a changed prune event anchors nothing',
  )
  for (const [what, overrides] of [
    ['a count that is not the range', { removed: 3 }],
    ['a range that ends after the event', { lastSeq: 40, firstSeq: 31, removed: 10 }],
    ['no hash', { lastHash: 'not a hash' }],
    ['a cutoff no date has', { cutoff: 9e15 }],
  ] as const) {
    t.same(
      (await verify(pruned(short, 10, overrides))).problems,
      [
        { seq: 11, problem: 'not_first' },
        { seq: 31, problem: 'bad_prune' },
      ],
      what,
    )
  }
})
