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

void t.test('issue 14 targets 8 and 9, each against its bound', async (t) => {
  const embedded = result({
    store: 'embedded',
    rssBeforeMb: 200.1,
    firstStart: { peakMb: 256, gatewayPeakMb: 200, childPeakMb: 90, rssMb: 200 },
  })
  t.same(statuses([result({}), embedded]), {
    'memory-start-postgres': 'PASS',
    'memory-postgres': 'MISS',
    'memory-per-account': 'PASS',
    'embedded-first-start-peak': 'PASS',
    'embedded-first-start-rss': 'PASS',
    'embedded-restart-rss': 'MISS',
  })
})

void t.test('fewer than 100,000 accounts measure no cached-account target', async (t) => {
  t.same(statuses([result({ accounts: 5_000, rssAfterMb: 90 })]), {
    'memory-start-postgres': 'PASS',
    'memory-postgres': 'NOT MEASURED',
    'memory-per-account': 'NOT MEASURED',
    'embedded-first-start-peak': 'NOT MEASURED',
    'embedded-first-start-rss': 'NOT MEASURED',
    'embedded-restart-rss': 'NOT MEASURED',
  })
})

void t.test('a report from before issue 14 (no first start, no heap per account)', async (t) => {
  const old = result({ heapPerAccountBytes: undefined, startPeakMb: undefined })
  const targets = memoryTargets([old, { ...old, store: 'embedded', firstStart: undefined }])
  t.equal(targets.find((target) => target.id === 'memory-per-account')?.status, 'NOT MEASURED')
  t.equal(
    targets.find((target) => target.id === 'embedded-first-start-peak')?.status,
    'NOT MEASURED',
  )
  t.equal(targets.find((target) => target.id === 'embedded-restart-rss')?.shown, '79.0 MB')
})
