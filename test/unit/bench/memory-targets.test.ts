import t from 'tap'
import type { MemoryResult } from '../../../bench/lib/types.js'
import { memoryTargets } from '../../../bench/report/memory-targets.js'

const result = (overrides: Partial<MemoryResult>): MemoryResult => ({
  store: 'postgres',
  accounts: 100_000,
  rssBeforeMb: 79,
  startPeakMb: 130,
  rssAfterMb: 151,
  peakMb: 160,
  heapUsedMb: 100,
  externalMb: 4,
  heapPerAccountBytes: 400,
  firstStart: null,
  warmSeconds: 60,
  failures: 0,
  ...overrides,
})

const statuses = (memory: MemoryResult[]) =>
  Object.fromEntries(memoryTargets(memory).map((target) => [target.id, target.status]))

void t.test('target 9: RSS and heap per account with 100,000 cached accounts', async (t) => {
  t.same(statuses([result({})]), { 'memory-postgres': 'MISS', 'memory-per-account': 'PASS' })
  const [rss, heap] = memoryTargets([result({ rssAfterMb: 150, heapPerAccountBytes: 400.4 })])
  t.same(
    [rss?.source, rss?.description, rss?.status, rss?.shown],
    ['23 #9', '100,000 cached accounts: RSS ≤ 150 MB', 'PASS', '150.0 MB'],
  )
  t.same(
    [heap?.description, heap?.required, heap?.status, heap?.shown],
    ['100,000 cached accounts: heap ≤ 400 B per account', '≤ 400 B', 'MISS', '400 B'],
  )
})

void t.test('fewer accounts, another store or an old report measure nothing', async (t) => {
  const none = { 'memory-postgres': 'NOT MEASURED', 'memory-per-account': 'NOT MEASURED' }
  t.same(statuses([result({ accounts: 5_000, rssAfterMb: 90 })]), none)
  t.same(statuses([result({ store: 'embedded' })]), none, 'read on the PostgreSQL store')
  t.equal(
    statuses([result({ heapPerAccountBytes: undefined })])['memory-per-account'],
    'NOT MEASURED',
  )
})
