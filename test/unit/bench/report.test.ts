import t from 'tap'
import type {
  BenchReport,
  LatencyResult,
  Sample,
  ScenarioSummary,
} from '../../../bench/lib/types.js'
import { DEFAULT_OPTIONS } from '../../../bench/lib/args.js'
import { renderDoc } from '../../../bench/report/doc.js'
import { analysisOf } from '../../../bench/report/analysis.js'
import { limitNote } from '../../../bench/report/doc-notes.js'
import { disturbedSamples, summarize, summarizeLatency } from '../../../bench/report/summarize.js'
import { markdownTable, textTable, throughputTable } from '../../../bench/report/table.js'
import { evaluateTargets, type TargetResult } from '../../../bench/report/targets.js'

function sample(scenario: string, round: number, rps: number, foreignCores = 0): Sample {
  return {
    scenario,
    round,
    rps,
    cpuUsPerRequest: 1e6 / rps,
    load: { requests: rps * 10, durationS: 10, unexpected: 0, errors: 0, p50Us: 1000, p99Us: 3000 },
    cpu: {
      sutS: 9,
      upstreamS: 1,
      generatorS: 5,
      harnessS: 0,
      outsideS: 0,
      foreignS: foreignCores * 10,
      stealS: 0,
      wallS: 10,
    },
    disturbance: { loadBefore: 1, loadAfter: 1, foreignCores, stealCores: 0, waitedS: 0 },
  }
}

const ORDER = [
  { id: 'nginx', label: 'nginx' },
  { id: 'haproxy-jwt', label: 'HAProxy jwt' },
  { id: 'pc-excluded', label: 'excluded' },
  { id: 'pc-sa-warm', label: 'warm token' },
  { id: 'pc-rs256-same', label: 'RS256 same' },
  { id: 'pc-sa-pg-nocache', label: 'pg' },
]

const samples = [
  sample('nginx', 1, 40_000),
  sample('nginx', 2, 50_000, 0.5),
  sample('nginx', 3, 45_000),
  sample('pc-sa-warm', 1, 20_000),
  sample('pc-excluded', 1, 21_000),
  sample('haproxy-jwt', 1, 20_000),
  sample('pc-rs256-same', 1, 19_000),
  sample('pc-sa-pg-nocache', 1, 6_000),
]

void t.test('summaries are medians over rounds, with the ratio to nginx', async (t) => {
  const summaries = summarize(samples, ORDER)
  const nginx = summaries.find((s) => s.scenario === 'nginx') as ScenarioSummary
  t.equal(nginx.rps, 45_000)
  t.equal(nginx.rounds, 3)
  t.equal(nginx.vsNginx, 1)
  t.equal(nginx.sutCores, 0.9)
  const warm = summaries.find((s) => s.scenario === 'pc-sa-warm') as ScenarioSummary
  t.equal(warm.vsNginx, 20_000 / 45_000)
  t.same(
    summaries.map((s) => s.scenario),
    ORDER.map((o) => o.id),
  )
  t.equal(disturbedSamples(samples).length, 1)
})

void t.test(
  'answers counted per status are summed over rounds, with the expected one',
  async (t) => {
    const counted = (round: number, statuses: Record<string, number>): Sample => {
      const base = sample('pc-429', round, 1_000)
      return { ...base, load: { ...base.load, statuses } }
    }
    const [summary] = summarize(
      [counted(1, { '429': 10, '401': 20 }), counted(2, { '429': 30 })],
      [{ id: 'pc-429', label: '429', expectStatus: 429 }],
    )
    t.same(summary?.statuses, { '401': 20, '429': 40 })
    t.equal(summary?.expectStatus, 429)
    const [plain] = summarize(samples, [{ id: 'nginx', label: 'nginx', expectStatus: 200 }])
    t.equal(plain?.statuses, undefined, 'not counted, not invented')
    t.equal(plain?.expectStatus, undefined)
  },
)

void t.test('tables render aligned text and markdown', async (t) => {
  const text = textTable(
    ['a', 'n'],
    [
      ['x', '1'],
      ['longer', '1,234'],
    ],
  )
  t.equal(text, 'a       n\n------  -----\nx           1\nlonger  1,234')
  t.equal(markdownTable(['a', 'b'], [['x|y', '2']]), '| a | b |\n|---|---:|\n| x\\|y | 2 |')
  t.match(throughputTable(summarize(samples, ORDER)), /warm token\s+20,000\s+0\.44/)
})

const unauthenticated = sample('pc-401', 1, 40_000)
const summaries = [
  ...summarize(samples, ORDER),
  ...summarize(
    [
      sample('koa-floor', 1, 25_000),
      sample('koa-floor-401', 1, 50_000),
      sample('koa-floor-401-set', 1, 80_000),
      { ...unauthenticated, load: { ...unauthenticated.load, statuses: { '401': 400_000 } } },
    ],
    [
      { id: 'koa-floor', label: 'Koa proxy' },
      { id: 'koa-floor-401', label: 'Koa 401 thrown', expectStatus: 401 },
      { id: 'koa-floor-401-set', label: 'Koa 401 set', expectStatus: 401 },
      { id: 'pc-401', label: 'no credential', expectStatus: 401 },
    ],
  ),
]

/** A complete report of a run without the phases; tests set the phase they read. */
const REPORT: BenchReport = {
  startedAt: '2026-01-01T00:00:00Z',
  finishedAt: '2026-01-01T00:10:00Z',
  options: { ...DEFAULT_OPTIONS, writeDocs: true },

  machine: {
    cpuModel: 'Test CPU',
    cores: 2,
    memoryGb: 24,
    kernel: '6.1',
    node: 'v20',
    tools: { wrk: '4.1.0', haproxy: null },
    loadAtStart: [1, 2, 3],
    loadAtEnd: [1, 2, 3],
  },
  generator: 'wrk',
  pinning: 'SUT on CPU 1',
  build: 'working tree',
  summaries,
  samples,
  skipped: [{ scenario: 'haproxy', reason: 'HAProxy not installed' }],
  latency: null,
  flood: null,
  memory: [],
  revocation: null,
  rsaVerify: { cpuUsPerVerify: 38.25, wallUsPerVerify: 39, iterations: 5_000, trials: 5 },
  notes: [],
}

void t.test(
  'the document carries machine, table, targets and placeholders for misses',
  async (t) => {
    const doc = renderDoc(REPORT, evaluateTargets(REPORT))
    t.match(doc, /Test CPU, 2 cores/)
    t.match(
      doc,
      /3 rounds alternating over the scenarios \(medians reported\), every system under test but the upstream started again \(a new process\) before each round and each scenario warmed up for 2 s in every round, so a median is over 3 processes/,
      'one piece by default, a new process per round',
    )
    t.match(
      renderDoc(
        { ...REPORT, options: { ...REPORT.options, restart: false } },
        evaluateTargets(REPORT),
      ),
      /\(medians reported\), 2 s of warm-up before a scenario's first round\./,
      'one process throughout with --no-restart',
    )
    t.match(
      renderDoc({ ...REPORT, options: { ...REPORT.options, sliceS: 2 } }, evaluateTargets(REPORT)),
      /3 rounds alternating over the scenarios \(medians reported\), each round's 10 s taken as 5 slices of 2 s in turn/,
    )
    t.match(
      doc,
      /- Hypervisor steal during the throughput measurements: median \d\.\d\d cores, max \d\.\d\d cores; a measurement with more than 0\.1 core of steal was taken again \(up to 3 times, the least stolen kept\): (none was left over it|\d+ of \d+ stayed over it)/,
    )
    t.match(doc, /haproxy \*\*not installed\*\*/)
    t.match(doc, /\| warm token \| 20,000 \| 0\.44 \| 1\.00 \| 3\.00 \| 50\.0 \| 90 % \| 0 \|/)
    t.match(doc, /haproxy: skipped — HAProxy not installed/)
    t.match(doc, /Warning: the run was disturbed/)
    t.match(
      doc,
      /\| 23 #2 \| warm service-account token ≤ 1\.30× the Koa floor \| ≤ 1\.30 × \| 1\.25 × \(50\.0 \/ 40\.0 µs\) \| PASS \|/,
    )
    t.match(
      doc,
      /\| 23 #1 \| excluded route \(`\/health`\): CPU\/request ≤ 1\.15× the Koa floor \| ≤ 1\.15 × \| 1\.19 × /,
    )
    t.match(
      doc,
      /\| 23 #5 \| a 401 \(no credential\) .*answers: 400,000 × 401\) \| ≤ 0\.60 × \| 0\.63 × \(25\.0 \/ 40\.0 µs\) \| MISS \|/,
    )
    t.match(doc, /\| 23 #4 \| fresh RS256 per request .* \| — \| NOT MEASURED \|/)
    t.match(doc, /\| 23 #10 \| the gateway’s repeated-RS256 row .* \| — \| NOT MEASURED \|/)
    t.match(doc, /\| no credential \| 401 \| 400,000 × 401 \|/, 'answers per status')
    t.match(doc, /\*\*38\.3 µs of CPU per verify\*\*/)
    t.match(
      doc,
      /- \*\*a 401 \(no credential\).*: no credential: 40,000 req\/s, 25\.0 µs CPU per request, .*; Koa proxy: 25,000 req\/s, 40\.0 µs CPU per request, .*; Koa 401 thrown: 50,000 req\/s, 20\.0 µs .*; Koa 401 set: 80,000 req\/s, 12\.5 µs/,
      "a missed CPU target names the rows it compares, a 401 beside Koa's own",
    )
    t.ok(doc.includes(analysisOf('cpu-excluded-vs-koa')), 'a missed target carries its analysis')
    t.match(doc, /Issue 23's ten targets/)
    t.match(doc, /a Fastify peer \(bench\/upstream\/fastify-peer\.ts/)
    t.notMatch(doc, /PLACEHOLDER/)
    t.match(doc, /### What the hot-path work changed/)
  },
)

/** The latency phase as reports before the Koa floor saved it (values of a full run's JSON). */
const LATENCY_BEFORE_THE_FLOOR: LatencyResult = JSON.parse(
  JSON.stringify({
    rate: 2000,
    direct: { p50Us: 490.134, p99Us: 2256.761, requests: 60001 },
    gateway: { p50Us: 1078.743, p99Us: 21224.638, requests: 59647 },
    addedP50Us: 588.609,
    addedP99Us: 18967.877,
    foreignCores: 0,
  }),
) as LatencyResult

const latencyTargets = (report: BenchReport): TargetResult[] =>
  evaluateTargets(report).filter((target) => target.id.startsWith('latency-'))

/** Target 7's p50 row, whose note the document prints when it is missed. */
function p50Target(report: BenchReport): TargetResult {
  const found = latencyTargets(report).find((target) => target.id === 'latency-p50')
  if (found === undefined) throw new Error('no latency-p50 target')
  return found
}

void t.test('the latency phase summarized over rounds, the Koa floor when it ran', async (t) => {
  const path = (p50Us: number, p99Us: number) => ({ p50Us, p99Us, requests: 1_000 })
  const withFloor = summarizeLatency(
    2000,
    {
      direct: [path(400, 1_500), path(500, 2_500), path(450, 2_000)],
      koaFloor: [path(700, 3_000), path(650, 2_600), path(800, 9_000)],
      gateway: [path(1_000, 9_000), path(1_100, 8_000), path(1_050, 30_000)],
    },
    [0, 0.4, 0.1],
  )
  t.same(withFloor, {
    rate: 2000,
    direct: { p50Us: 450, p99Us: 2_000, requests: 3_000 },
    gateway: { p50Us: 1_050, p99Us: 9_000, requests: 3_000 },
    addedP50Us: 600,
    addedP99Us: 7_000,
    koaFloor: { p50Us: 700, p99Us: 3_000, requests: 3_000 },
    koaFloorAddedP50Us: 250,
    koaFloorAddedP99Us: 1_000,
    foreignCores: 0.1,
  })
  const without = summarizeLatency(
    2000,
    { direct: [path(400, 1_500)], koaFloor: [], gateway: [path(1_000, 9_000)] },
    [0],
  )
  t.same(
    Object.keys(without).filter((key) => key.startsWith('koaFloor')),
    [],
    'nothing invented',
  )
  t.equal(without.addedP50Us, 600)
})

void t.test(
  'the latency table and target 7’s note carry the Koa floor beside the gateway',
  async (t) => {
    const latency: LatencyResult = {
      ...LATENCY_BEFORE_THE_FLOOR,
      koaFloor: { p50Us: 700.2, p99Us: 4_100, requests: 59_990 },
      koaFloorAddedP50Us: 210.066,
      koaFloorAddedP99Us: 1_843.239,
    }
    const report: BenchReport = { ...REPORT, latency }
    const doc = renderDoc(report, evaluateTargets(report))
    t.match(
      doc,
      [
        '| direct | 0.490 | 2.257 | 60001 |',
        '| Koa floor (no logic) | 0.700 | 4.100 | 59990 |',
        '| Portcullis (warm token) | 1.079 | 21.225 | 59647 |',
        '| added by the Koa floor | 0.210 | 1.843 |  |',
        '| added by the gateway | 0.589 | 18.968 |  |',
      ].join('\n'),
      'the rows in order: the paths, then what each added to direct',
    )
    t.match(doc, /alternating direct, through the Koa floor \(no logic\) and through Portcullis/)
    const [p50, p99] = latencyTargets(report)
    t.same(
      [p50?.status, p50?.shown, p99?.status, p99?.shown],
      ['MISS', '0.589 ms', 'MISS', '18.968 ms'],
      "the gateway's added latency decides, as the issue says; the floor's does not",
    )
    const note =
      "Direct p50/p99 0.490/2.257 ms; through the gateway 1.079/21.225 ms at 2000 req/s; through the Koa floor (no logic) 0.700/4.100 ms, so Koa's relay by itself added 0.210/1.843 ms at the same rate."
    t.equal(limitNote(p50Target(report), report), note)
    t.ok(doc.includes(`(MISS, 0.589 ms): ${note}`), 'the missed target carries the note')
    t.ok(doc.includes(analysisOf('latency-p50')), 'and its analysis')
  },
)

void t.test(
  'a report saved before slices and restarts says one piece and one process',
  async (t) => {
    const { sliceS: _, restart: __, maxStealCores: ___, ...before } = REPORT.options
    const doc = renderDoc(
      { ...REPORT, options: before as BenchReport['options'] },
      evaluateTargets(REPORT),
    )
    t.match(doc, /3 rounds alternating over the scenarios \(medians reported\), 2 s of warm-up/)
    t.notMatch(doc, /slices/)
    t.match(
      doc,
      /- Hypervisor steal during the throughput measurements: median [\d.]+ cores, max [\d.]+ cores\n/,
    )
    t.notMatch(doc, /taken again/, 'older runs never retook a measurement')
  },
)

void t.test('a report saved before the Koa floor was measured still renders', async (t) => {
  const report: BenchReport = { ...REPORT, latency: LATENCY_BEFORE_THE_FLOOR }
  const doc = renderDoc(report, evaluateTargets(report))
  t.match(
    doc,
    [
      '| direct | 0.490 | 2.257 | 60001 |',
      '| Portcullis (warm token) | 1.079 | 21.225 | 59647 |',
      '| added by the gateway | 0.589 | 18.968 |  |',
    ].join('\n'),
  )
  t.notMatch(doc, /Koa floor \(no logic\) \|/, 'no floor row')
  t.notMatch(doc, /added by the Koa floor/)
  t.match(doc, /alternating direct and through Portcullis/)
  t.equal(
    limitNote(p50Target(report), report),
    'Direct p50/p99 0.490/2.257 ms; through the gateway 1.079/21.225 ms at 2000 req/s; the Koa floor was not measured.',
  )
  t.same(
    latencyTargets(report).map((target) => target.status),
    ['MISS', 'MISS'],
  )
})
