import t from 'tap'
import { chainEvents } from '../../../src/service-accounts/audit-chain.js'
import type { AuditEvent } from '../../../src/service-accounts/audit-event.js'
import { verifyChain } from '../../../src/service-accounts/audit-verify.js'
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
    problems: [],
  })
  t.same(await verifyChain(reader([]).read), { events: 0, head: null, problems: [] })
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
