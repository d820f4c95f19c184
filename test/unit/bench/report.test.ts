import t from 'tap'
import type { BenchReport, Sample, ScenarioSummary } from '../../../bench/lib/types.js'
import { renderDoc } from '../../../bench/report/doc.js'
import { analysisOf } from '../../../bench/report/analysis.js'
import { disturbedSamples, summarize } from '../../../bench/report/summarize.js'
import { markdownTable, textTable, throughputTable } from '../../../bench/report/table.js'
import { evaluateTargets } from '../../../bench/report/targets.js'

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

void t.test('targets: ratios, thresholds, and what was not measured', async (t) => {
  const summaries = summarize(samples, ORDER)
  const targets = evaluateTargets({
    summaries,
    latency: {
      rate: 2000,
      direct: { p50Us: 200, p99Us: 900, requests: 1 },
      gateway: { p50Us: 600, p99Us: 1900, requests: 1 },
      addedP50Us: 400,
      addedP99Us: 1000,
      foreignCores: 0,
    },
    flood: null,
    memory: [],
    revocation: { tokens: 200, p50Ms: 5, p99Ms: 20, maxMs: 30, afterAckP99Ms: 10, timedOut: 1 },
  })
  const status = (id: string) => targets.find((target) => target.id === id)?.status
  t.equal(status('sa-vs-nginx'), 'MISS', '0.44 < 0.45')
  t.equal(status('jwt-vs-haproxy'), 'MISS', '0.95 < 1.0')
  t.equal(status('auth-vs-excluded'), 'PASS', '0.952 ≥ 0.9')
  t.equal(status('latency-p50'), 'MISS')
  t.equal(status('latency-p99'), 'PASS')
  t.equal(status('pg-nocache'), 'PASS')
  t.equal(status('flood'), 'NOT MEASURED')
  for (const id of [
    'memory-start-postgres',
    'memory-postgres',
    'memory-per-account',
    'embedded-first-start-peak',
    'embedded-first-start-rss',
    'embedded-restart-rss',
  ])
    t.equal(status(id), 'NOT MEASURED', id)
  t.equal(status('revocation'), 'MISS', 'a token never refused is a miss')
})

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

void t.test(
  'the document carries machine, table, targets and placeholders for misses',
  async (t) => {
    const unauthenticated = sample('pc-401', 1, 40_000)
    const summaries = [
      ...summarize(samples, ORDER),
      ...summarize(
        [
          sample('node-floor', 1, 25_000),
          { ...unauthenticated, load: { ...unauthenticated.load, statuses: { '401': 400_000 } } },
        ],
        [
          { id: 'node-floor', label: 'bare Node proxy' },
          { id: 'pc-401', label: 'no credential', expectStatus: 401 },
        ],
      ),
    ]
    const report: BenchReport = {
      startedAt: '2026-01-01T00:00:00Z',
      finishedAt: '2026-01-01T00:10:00Z',
      options: {
        quick: false,
        only: null,
        rounds: 3,
        durationS: 10,
        warmupS: 2,
        accessLog: true,
        build: true,
        ref: null,
        connections: 50,
        latencyRate: 2000,
        floodRate: 5000,
        memoryAccounts: 100_000,
        revocations: 200,
        writeDocs: true,
        cpuProfile: false,
        reportFile: null,
        waitQuietCores: null,
      },
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
    const doc = renderDoc(report, evaluateTargets(report))
    t.match(doc, /Test CPU, 2 cores/)
    t.match(doc, /haproxy \*\*not installed\*\*/)
    t.match(doc, /\| warm token \| 20,000 \| 0\.44 \| 1\.00 \| 3\.00 \| 50\.0 \| 90 % \| 0 \|/)
    t.match(doc, /haproxy: skipped — HAProxy not installed/)
    t.match(doc, /Warning: the run was disturbed/)
    t.match(
      doc,
      /\| warm service-account token through Portcullis vs nginx plain proxy \| ≥ 0\.45 × \| 0\.44 × \| MISS \|/,
    )
    t.match(
      doc,
      /\| 14 #1 \| warm service-account token vs the bare Node proxy, CPU per request \| ≤ 1\.35 × \| 1\.25 × \(50\.0 \/ 40\.0 µs\) \| PASS \|/,
    )
    t.match(
      doc,
      /\| 14 #2 \| excluded route \(\/health\) vs the bare Node proxy, CPU per request \| ≤ 1\.20 × \| 1\.19 × /,
    )
    t.match(
      doc,
      /\| 14 #7 \| 401 for a request without a credential .*answers: 400,000 × 401\) \| ≤ 0\.60 × \| 0\.63 × \(25\.0 \/ 40\.0 µs\) \| MISS \|/,
    )
    t.match(doc, /\| 14 #5 \| fresh RS256 JWT .* \| — \| NOT MEASURED \|/)
    t.match(doc, /\| no credential \| 401 \| 400,000 × 401 \|/, 'answers per status')
    t.match(doc, /\*\*38\.3 µs of CPU per verify\*\*/)
    t.match(
      doc,
      /- \*\*401 for a request .*: no credential: 40,000 req\/s, 25\.0 µs CPU per request, .*; bare Node proxy: 25,000 req\/s, 40\.0 µs CPU per request/,
      'a missed CPU target names the rows it compares',
    )
    t.ok(doc.includes(analysisOf('sa-vs-nginx')), 'a missed target carries its analysis')
    t.notMatch(doc, /PLACEHOLDER/)
    t.match(doc, /### What the hot-path work changed/)
  },
)
