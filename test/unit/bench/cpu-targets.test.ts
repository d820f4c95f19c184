import t from 'tap'
import type { RsaVerifyResult, ScenarioSummary } from '../../../bench/lib/types.js'
import {
  answeredAs,
  cpuTargets,
  freshRs256Bound,
  selfAnswerTargets,
} from '../../../bench/report/cpu-targets.js'
import { evaluateTargets, type TargetResult } from '../../../bench/report/targets.js'

const summary = (
  scenario: string,
  cpuUsPerRequest: number,
  extra: Partial<ScenarioSummary> = {},
): ScenarioSummary => ({
  scenario,
  label: scenario,
  rounds: 1,
  rps: 10_000,
  p50Us: 1_000,
  p99Us: 3_000,
  cpuUsPerRequest,
  unexpected: 0,
  errors: 0,
  foreignCores: 0,
  sutCores: 1,
  generatorCores: 0.5,
  vsNginx: null,
  ...extra,
})

const verify: RsaVerifyResult = {
  cpuUsPerVerify: 40,
  wallUsPerVerify: 41,
  iterations: 5_000,
  trials: 5,
}

const byId = (targets: readonly TargetResult[]) =>
  Object.fromEntries(targets.map((target) => [target.id, target]))

void t.test('targets 1–4: CPU per request as ratios, each at its bound', async (t) => {
  const targets = byId(
    cpuTargets(
      [
        summary('node-floor', 40),
        summary('pc-excluded', 48), // 1.20 × the floor: at the bound
        summary('pc-sa-warm', 54), // 1.35 × the floor, 1.125 × excluded
        summary('pc-rs256-same', 56.7), // 1.05 × warm: at the bound
        summary('pc-es256-same', 56.8), // just over
        summary('pc-hs256-same', 30), // cheaper is fine
      ],
      null,
    ),
  )
  t.equal(targets['cpu-sa-warm-vs-floor']?.status, 'PASS')
  t.equal(targets['cpu-sa-warm-vs-floor']?.shown, '1.35 × (54.0 / 40.0 µs)')
  t.equal(targets['cpu-sa-warm-vs-floor']?.source, '14 #1')
  t.equal(targets['cpu-excluded-vs-floor']?.status, 'PASS')
  t.equal(targets['cpu-sa-warm-vs-excluded']?.status, 'MISS', '1.125 > 1.10')
  t.equal(targets['cpu-sa-warm-vs-excluded']?.required, '≤ 1.10 ×')
  t.equal(targets['cpu-rs256-same-vs-sa']?.status, 'PASS')
  t.equal(targets['cpu-es256-same-vs-sa']?.status, 'MISS')
  t.equal(targets['cpu-hs256-same-vs-sa']?.status, 'PASS')
  t.equal(targets['cpu-rs256-fresh']?.status, 'NOT MEASURED', 'no verify measured')
})

void t.test('a scenario or its baseline missing is not measured', async (t) => {
  const targets = byId(cpuTargets([summary('pc-sa-warm', 54)], verify))
  t.equal(targets['cpu-sa-warm-vs-floor']?.status, 'NOT MEASURED')
  t.equal(targets['cpu-sa-warm-vs-floor']?.shown, '—')
  t.equal(targets['cpu-rs256-fresh']?.status, 'NOT MEASURED', 'no floor')
})

void t.test('target 5: fresh RS256 against the floor plus 1.5 plain verifies', async (t) => {
  t.equal(freshRs256Bound(40, 40), 100)
  t.equal(freshRs256Bound(null, 40), null)
  t.equal(freshRs256Bound(40, Number.NaN), null)
  const at = (fresh: number) =>
    byId(cpuTargets([summary('node-floor', 40), summary('pc-rs256-fresh', fresh)], verify))[
      'cpu-rs256-fresh'
    ]
  t.equal(at(100)?.status, 'PASS')
  t.equal(at(100)?.shown, '100.0 µs (bound 100.0 = 40.0 + 1.5 × 40.0 µs)')
  t.equal(at(100.1)?.status, 'MISS')
  t.equal(at(100)?.source, '14 #5')
})

void t.test(
  'target 7: 401 and 429 rows count only when the answers are what they claim',
  async (t) => {
    const floor = summary('node-floor', 50)
    const targets = byId(
      selfAnswerTargets([
        floor,
        summary('pc-401', 30, { expectStatus: 401, statuses: { '401': 20_000 } }),
        summary('pc-429', 31, { expectStatus: 429, statuses: { '429': 9_950, '401': 50 } }),
      ]),
    )
    t.equal(targets['cpu-401-vs-floor']?.status, 'PASS', '0.60 × the floor')
    t.match(targets['cpu-401-vs-floor']?.description, /answers: 20,000 × 401/)
    t.equal(targets['cpu-429-vs-floor']?.status, 'MISS', '0.62 > 0.6')
    t.match(targets['cpu-429-vs-floor']?.description, /answers: 50 × 401, 9,950 × 429/)

    const wrong = byId(
      selfAnswerTargets([
        floor,
        summary('pc-401', 10, { statuses: { '200': 100 } }),
        summary('pc-429', 10, { statuses: { '429': 980, '401': 20 } }),
      ]),
    )
    t.equal(wrong['cpu-401-vs-floor']?.status, 'NOT MEASURED', 'answered 200, not 401')
    t.equal(wrong['cpu-429-vs-floor']?.status, 'NOT MEASURED', 'only 98 % were 429')
    const uncounted = byId(selfAnswerTargets([floor, summary('pc-401', 10)]))
    t.equal(uncounted['cpu-401-vs-floor']?.status, 'NOT MEASURED', 'statuses not counted')
    t.match(uncounted['cpu-401-vs-floor']?.description, /answers not counted/)
  },
)

void t.test('answeredAs counts socket errors against the share', async (t) => {
  t.ok(answeredAs(summary('x', 1, { statuses: { '429': 99 }, errors: 1 }), 429))
  t.notOk(answeredAs(summary('x', 1, { statuses: { '429': 99 }, errors: 2 }), 429))
  t.notOk(answeredAs(summary('x', 1, { statuses: {} }), 429))
})

void t.test('latency and flood rows say which issue set them and the flood rate', async (t) => {
  const targets = byId(
    evaluateTargets({
      summaries: [],
      latency: {
        rate: 2000,
        direct: { p50Us: 200, p99Us: 900, requests: 1 },
        gateway: { p50Us: 450, p99Us: 2_700, requests: 1 },
        addedP50Us: 250,
        addedP99Us: 1_800,
        foreignCores: 0,
      },
      flood: {
        aloneRps: 5_000,
        underFloodRps: 4_200,
        drop: 0.16,
        floodRate: 5_000,
        floodAchievedRps: 3_210.4,
        floodStatuses: { '429': 30_000 },
        foreignCores: 0,
      },
      memory: [],
      revocation: null,
    }),
  )
  t.equal(targets['latency-p50']?.status, 'PASS')
  t.equal(targets['latency-p50']?.source, '8, 14 #6')
  t.equal(targets['latency-p99-issue14']?.status, 'PASS', '1.8 ms ≤ 2 ms')
  t.equal(targets['latency-p99-issue14']?.source, '14 #6')
  t.equal(targets['latency-p99']?.status, 'MISS', 'issue 8: 1.8 ms > 1.5 ms')
  t.equal(targets['latency-p99']?.source, '8')
  t.equal(targets.flood?.status, 'PASS')
  t.match(targets.flood?.description, /flood ran at 3,210 req\/s of 5,000 asked/)
  t.equal(targets.flood?.source, '8, 14 #7')
})
