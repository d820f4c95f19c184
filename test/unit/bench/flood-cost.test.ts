import t from 'tap'
import type { CpuUsage, FloodResult, LoadResult } from '../../../bench/lib/types.js'
import { floodCostNote } from '../../../bench/report/doc-notes.js'
import { floodCost } from '../../../bench/scenarios/flood.js'
import { EMPTY_REPORT } from './empty-report.js'

function run(requests: number, sutS: number): { load: LoadResult; cpu: CpuUsage } {
  return {
    load: { requests, durationS: 10, unexpected: 0, errors: 0, p50Us: 1000, p99Us: 3000 },
    cpu: {
      sutS,
      upstreamS: 0,
      generatorS: 0,
      harnessS: 0,
      outsideS: 0,
      foreignS: 0,
      stealS: 0,
      wallS: 10,
    },
  }
}

void t.test(
  'the gateway CPU the flood leaves unexplained by the good requests is the flood’s',
  async (t) => {
    // Alone: 160,000 good requests in 9.6 s of CPU, 60 µs each. Under a 5,000 req/s flood:
    // 120,000 good requests (7.2 s at 60 µs) in 9.9 s, so 2.7 s for 50,000 flood requests.
    const cost = floodCost(run(160_000, 9.6), run(120_000, 9.9), 5_000)
    t.equal(Math.round(cost.goodCpuUs * 10) / 10, 60)
    t.equal(Math.round(cost.floodCpuUs * 10) / 10, 54)
    t.equal(Math.round(cost.busyUnderFlood * 100) / 100, 0.99)
  },
)

void t.test('no requests measured: no cost, rather than a division by zero', async (t) => {
  const cost = floodCost(run(0, 0), run(0, 0), 0)
  t.same(cost, { goodCpuUs: 0, floodCpuUs: 0, busyUnderFlood: 0 })
})

const FLOOD: FloodResult = {
  aloneRps: 16_000,
  underFloodRps: 12_000,
  drop: 0.25,
  floodRate: 5_000,
  floodAchievedRps: 4_980,
  floodStatuses: { '429': 50_000 },
  foreignCores: 0,
}

void t.test('the note states the cost in place beside the closed-loop 429 row', async (t) => {
  const report = {
    ...EMPTY_REPORT,
    summaries: [
      {
        scenario: 'pc-429',
        label: '429',
        rounds: 1,
        rps: 24_000,
        p50Us: 1_000,
        p99Us: 3_000,
        cpuUsPerRequest: 41.2,
        unexpected: 0,
        errors: 0,
        foreignCores: 0,
        sutCores: 0.99,
        generatorCores: 0.5,
        vsNginx: null,
      },
    ],
  }
  const note = floodCostNote(
    { ...FLOOD, goodCpuUs: 60, floodCpuUs: 54, busyUnderFlood: 0.99 },
    report,
  )
  t.match(note, /busy 99 % of a core/)
  t.match(
    note,
    /a good request cost it 60\.0 µs of CPU alone, and each flood request 54\.0 µs in place \(the closed-loop 429 row: 41\.2 µs\)/,
  )
  // A report from before the flood's cost was measured says nothing of it.
  t.equal(floodCostNote(FLOOD, report), '')
})
