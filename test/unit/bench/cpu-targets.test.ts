import t from 'tap'
import type { RsaVerifyResult, Sample, ScenarioSummary } from '../../../bench/lib/types.js'
import {
  accessLogTarget,
  answeredAs,
  comparedScenarios,
  cpuTargets,
  fastifyTarget,
  freshRs256Bound,
  ratioText,
  roundRatioRange,
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

void t.test('targets 1–3: CPU per request against the Koa floor, each at its bound', async (t) => {
  const targets = byId(
    cpuTargets(
      [
        summary('node-floor', 10), // not the floor any more
        summary('koa-floor', 40),
        summary('pc-excluded', 46), // 1.15 × the Koa floor: at the bound
        summary('pc-sa-warm', 52.1), // just over 1.30 ×
        summary('pc-rs256-same', 54.7), // 1.05 × warm: at the bound
        summary('pc-es256-same', 54.8), // just over
        summary('pc-hs256-same', 30), // cheaper is fine
      ],
      null,
      10,
    ),
  )
  t.equal(targets['cpu-excluded-vs-koa']?.status, 'PASS')
  t.equal(targets['cpu-excluded-vs-koa']?.shown, '1.15 × (46.0 / 40.0 µs)')
  t.equal(targets['cpu-excluded-vs-koa']?.source, '23 #1')
  t.equal(
    targets['cpu-excluded-vs-koa']?.description,
    'excluded route (`/health`): CPU/request ≤ 1.15× the Koa floor',
  )
  t.equal(targets['cpu-sa-warm-vs-koa']?.status, 'MISS', '1.3025 > 1.30')
  t.equal(
    targets['cpu-sa-warm-vs-koa']?.shown,
    '1.302 × (52.1 / 40.0 µs)',
    'a third decimal where two would print the bound beside a MISS',
  )
  t.equal(targets['cpu-sa-warm-vs-koa']?.required, '≤ 1.30 ×')
  t.equal(targets['cpu-sa-warm-vs-koa']?.source, '23 #2')
  t.equal(targets['cpu-rs256-same-vs-sa']?.status, 'PASS')
  t.equal(targets['cpu-rs256-same-vs-sa']?.source, '23 #3')
  t.equal(targets['cpu-es256-same-vs-sa']?.status, 'MISS')
  t.equal(targets['cpu-hs256-same-vs-sa']?.status, 'PASS')
  t.equal(targets['cpu-rs256-fresh']?.status, 'NOT MEASURED', 'no verify measured')
})

void t.test('a ratio is shown to more decimals only where two would print its bound', async (t) => {
  t.equal(ratioText(1.1516, 1.15), '1.152')
  t.equal(ratioText(1.15046, 1.15), '1.1505', 'more digits until it differs from the bound')
  t.equal(ratioText(1.150004, 1.15), '1.1500', 'at most four')
  t.equal(ratioText(1.149, 1.15), '1.149')
  t.equal(ratioText(46 / 40, 1.15), '1.15', 'the bound itself')
  t.equal(ratioText(1.2, 1.15), '1.20')
  t.equal(ratioText(0.71, 0.6), '0.71')
})

void t.test('a scenario or its baseline missing is not measured', async (t) => {
  const targets = byId(cpuTargets([summary('pc-sa-warm', 54)], verify, 10))
  t.equal(targets['cpu-sa-warm-vs-koa']?.status, 'NOT MEASURED')
  t.equal(targets['cpu-sa-warm-vs-koa']?.shown, '—')
  t.equal(targets['cpu-rs256-fresh']?.status, 'NOT MEASURED', 'no Koa floor')
  const bareOnly = byId(
    cpuTargets([summary('node-floor', 40), summary('pc-excluded', 40)], null, 10),
  )
  t.equal(bareOnly['cpu-excluded-vs-koa']?.status, 'NOT MEASURED', 'the bare floor does not count')
})

void t.test('target 4: fresh RS256 against the Koa floor plus 1.5 plain verifies', async (t) => {
  t.equal(freshRs256Bound(40, 40), 100)
  t.equal(freshRs256Bound(null, 40), null)
  t.equal(freshRs256Bound(40, Number.NaN), null)
  const at = (fresh: number) =>
    byId(
      cpuTargets(
        [summary('node-floor', 10), summary('koa-floor', 40), summary('pc-rs256-fresh', fresh)],
        verify,
        10,
      ),
    )['cpu-rs256-fresh']
  t.equal(at(100)?.status, 'PASS')
  t.equal(at(100)?.shown, '100.0 µs (bound 100.0 = 40.0 + 1.5 × 40.0 µs)')
  t.equal(at(100.1)?.status, 'MISS')
  t.equal(at(100)?.source, '23 #4')
})

void t.test(
  'target 5: 401 and 429 rows count only when the answers are what they claim',
  async (t) => {
    const floor = summary('koa-floor', 50)
    const targets = byId(
      cpuTargets(
        [
          floor,
          summary('pc-401', 30, { expectStatus: 401, statuses: { '401': 20_000 } }),
          summary('pc-429', 31, { expectStatus: 429, statuses: { '429': 9_950, '401': 50 } }),
        ],
        null,
        10,
      ),
    )
    t.equal(targets['cpu-401-vs-koa']?.status, 'PASS', '0.60 × the Koa floor')
    t.equal(targets['cpu-401-vs-koa']?.source, '23 #5')
    t.match(targets['cpu-401-vs-koa']?.description, /^a 401 \(no credential\) ≤ 0\.6× the Koa/)
    t.match(targets['cpu-401-vs-koa']?.description, /answers: 20,000 × 401/)
    t.equal(targets['cpu-429-vs-koa']?.status, 'MISS', '0.62 > 0.6')
    t.match(targets['cpu-429-vs-koa']?.description, /answers: 50 × 401, 9,950 × 429/)

    const wrong = byId(
      cpuTargets(
        [
          floor,
          summary('pc-401', 10, { statuses: { '200': 100 } }),
          summary('pc-429', 10, { statuses: { '429': 980, '401': 20 } }),
        ],
        null,
        10,
      ),
    )
    t.equal(wrong['cpu-401-vs-koa']?.status, 'NOT MEASURED', 'answered 200, not 401')
    t.equal(wrong['cpu-429-vs-koa']?.status, 'NOT MEASURED', 'only 98 % were 429')
    const uncounted = byId(cpuTargets([floor, summary('pc-401', 10)], null, 10))
    t.equal(uncounted['cpu-401-vs-koa']?.status, 'NOT MEASURED', 'statuses not counted')
    t.match(uncounted['cpu-401-vs-koa']?.description, /answers not counted/)
    t.same(
      comparedScenarios('cpu-401-vs-koa'),
      ['pc-401', 'koa-floor', 'koa-floor-401', 'koa-floor-401-set'],
      "a miss is shown beside Koa's own 401s, thrown and set",
    )
    t.same(comparedScenarios('cpu-429-vs-koa'), ['pc-429', 'koa-floor'])
  },
)

void t.test('answeredAs counts socket errors against the share', async (t) => {
  t.ok(answeredAs(summary('x', 1, { statuses: { '429': 99 }, errors: 1 }), 429))
  t.notOk(answeredAs(summary('x', 1, { statuses: { '429': 99 }, errors: 2 }), 429))
  t.notOk(answeredAs(summary('x', 1, { statuses: {} }), 429))
})

void t.test('target 6: the access log’s µs, read only from 10 s rounds', async (t) => {
  const rows = (on: number) => [summary('pc-sa-warm-log', on), summary('pc-sa-warm-nolog', 50)]
  const at = accessLogTarget(rows(53), 10)
  t.same(
    [at.source, at.status, at.shown, at.required],
    ['23 #6', 'PASS', '3.0 µs (53.0 − 50.0 µs)', '≤ 3 µs'],
  )
  t.equal(
    at.description,
    'access log on: ≤ 3 µs per request over the same scenario with it off, in 10 s rounds',
  )
  t.equal(accessLogTarget(rows(53.1), 12).status, 'MISS')
  t.equal(accessLogTarget(rows(45), 10).status, 'PASS', 'cheaper with it on: noise, no cost')
  const short = accessLogTarget(rows(53.1), 6)
  t.same(
    [short.status, short.shown],
    ['NOT MEASURED', '3.1 µs (53.1 − 50.0 µs) in 6 s rounds'],
    'shorter rounds: shown, not judged',
  )
  t.equal(accessLogTarget(rows(51), null).status, 'NOT MEASURED', 'round length unknown')
  t.equal(accessLogTarget([summary('pc-sa-warm-log', 53)], 10).shown, '—', 'no log-off row')
  t.same(comparedScenarios('access-log-cost'), ['pc-sa-warm-log', 'pc-sa-warm-nolog'])
})

void t.test('target 10: the repeated-RS256 row against the Fastify peer', async (t) => {
  const peer = (cpu: number) =>
    fastifyTarget([summary('pc-rs256-same', 60), summary('fastify-rs256-same', cpu)])
  t.same(
    [peer(60).status, peer(60).shown, peer(60).source],
    ['PASS', '1.00 × (60.0 / 60.0 µs)', '23 #10'],
  )
  t.equal(peer(59.9).status, 'MISS')
  t.equal(fastifyTarget([summary('pc-rs256-same', 60)]).status, 'NOT MEASURED', 'no peer row')
})

void t.test('the ten targets in the issue’s order, latency and flood rates stated', async (t) => {
  const targets = evaluateTargets({
    summaries: [],
    latency: {
      rate: 2000,
      direct: { p50Us: 200, p99Us: 900, requests: 1 },
      gateway: { p50Us: 450, p99Us: 2_700, requests: 1 },
      addedP50Us: 250,
      addedP99Us: 2_100,
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
    options: { durationS: 10 },
  })
  t.same(
    [...new Set(targets.map((target) => target.source))],
    Array.from({ length: 10 }, (_, index) => `23 #${index + 1}`),
    'every target, once each, in order',
  )
  const ids = byId(targets)
  t.equal(ids['latency-p50']?.status, 'PASS')
  t.equal(ids['latency-p50']?.description, 'added latency at 2,000 req/s: p50 ≤ 0.3 ms')
  t.equal(ids['latency-p99']?.status, 'MISS', '2.1 ms > 2 ms')
  t.equal(ids['latency-p99']?.shown, '2.100 ms')
  t.equal(ids.flood?.status, 'PASS')
  t.match(ids.flood?.description, /^flood: good clients lose ≤ 20 % while a bad-token flood runs/)
  t.match(ids.flood?.description, /it ran at 3,210 req\/s of 5,000 asked/)
  t.equal(ids['access-log-cost']?.status, 'NOT MEASURED', 'no rows')
})

void t.test('a ratio target shows its lowest and highest round beside the medians', async (t) => {
  const sample = (scenario: string, round: number, cpuUsPerRequest: number) =>
    ({ scenario, round, cpuUsPerRequest }) as unknown as Sample
  const samples = [
    sample('koa-floor', 1, 100),
    sample('pc-excluded', 1, 101),
    sample('koa-floor', 2, 70),
    sample('pc-excluded', 2, 119),
    sample('koa-floor', 3, 100),
    sample('pc-excluded', 3, 110),
    // A round that measured only one of the two is left out.
    sample('pc-excluded', 4, 500),
  ]
  const range = roundRatioRange(samples, 'pc-excluded', 'koa-floor')
  t.equal(range?.low.toFixed(2), '1.01')
  t.equal(range?.high.toFixed(2), '1.70')
  t.equal(roundRatioRange(samples.slice(0, 2), 'pc-excluded', 'koa-floor'), null, 'one round: none')
  const [excluded] = cpuTargets(
    [summary('koa-floor', 100), summary('pc-excluded', 110)],
    null,
    10,
    samples,
  )
  t.equal(excluded?.shown, '1.10 × (110.0 / 100.0 µs; round by round 1.01–1.70 ×)')
  t.equal(excluded?.status, 'PASS', 'the verdict is still the ratio of the medians')
  const [plain] = cpuTargets([summary('koa-floor', 100), summary('pc-excluded', 110)], null, 10)
  t.equal(plain?.shown, '1.10 × (110.0 / 100.0 µs)', 'no samples, no range')
})
