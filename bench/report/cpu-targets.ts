import { ratio, sumValues } from '../lib/stats.js'
import type { RsaVerifyResult, Sample, ScenarioSummary } from '../lib/types.js'
import { target, type TargetResult } from './targets.js'

/** The floor every CPU target is measured against, in the same run. */
export const KOA_FLOOR = 'koa-floor'

/** One scenario's CPU per request bounded by a multiple of another's, measured in the same run. */
interface CpuRatio {
  readonly id: string
  readonly source: string
  readonly description: string
  readonly scenario: string
  readonly baseline: string
  readonly bound: number
  /** For answers the gateway gives itself: the status every answer must have. */
  readonly status?: number
}

const cpuRatio = (
  id: string,
  source: string,
  description: string,
  scenario: string,
  baseline: string,
  bound: number,
  status?: number,
): CpuRatio => ({ id, source, description, scenario, baseline, bound, status })

/** Targets 1 and 2. */
const AGAINST_FLOOR: readonly CpuRatio[] = [
  cpuRatio(
    'cpu-excluded-vs-koa',
    '23 #1',
    'excluded route (`/health`): CPU/request ≤ 1.15× the Koa floor',
    'pc-excluded',
    KOA_FLOOR,
    1.15,
  ),
  cpuRatio(
    'cpu-sa-warm-vs-koa',
    '23 #2',
    'warm service-account token ≤ 1.30× the Koa floor',
    'pc-sa-warm',
    KOA_FLOOR,
    1.3,
  ),
]

/** Target 3, one row per algorithm. */
const REPEATED_JWT: readonly CpuRatio[] = (['RS256', 'ES256', 'HS256'] as const).map((alg) =>
  cpuRatio(
    `cpu-${alg.toLowerCase()}-same-vs-sa`,
    '23 #3',
    `repeated JWT (${alg}) within 5 % of the warm service-account row`,
    `pc-${alg.toLowerCase()}-same`,
    'pc-sa-warm',
    1.05,
  ),
)

/** The throttled-token row: target 5's 429, and the flood's closed-loop comparison. */
export const THROTTLED_ROW = 'pc-429'

/** Target 5: answers the gateway gives itself, checked to be what they claim. */
const SELF_ANSWERED: readonly CpuRatio[] = [
  cpuRatio(
    'cpu-401-vs-koa',
    '23 #5',
    'a 401 (no credential) ≤ 0.6× the Koa floor’s proxied request',
    'pc-401',
    KOA_FLOOR,
    0.6,
    401,
  ),
  cpuRatio(
    'cpu-429-vs-koa',
    '23 #5',
    'a 429 (throttled `svc_pat_` flood) ≤ 0.6× the Koa floor’s proxied request',
    THROTTLED_ROW,
    KOA_FLOOR,
    0.6,
    429,
  ),
]

/** Target 10. */
const FASTIFY_TARGET: CpuRatio = cpuRatio(
  'rs256-vs-fastify',
  '23 #10',
  'the gateway’s repeated-RS256 row ≤ 1.0× the Fastify peer’s, with the peer’s logging off and the gateway’s access log on',
  'pc-rs256-same',
  'fastify-rs256-same',
  1.0,
)

export const RSA_FRESH_TARGET = 'cpu-rs256-fresh'
export const ACCESS_LOG_TARGET = 'access-log-cost'
/** Target 6 compares the same scenario on one gateway, its access log turned on and off by reloads. */
export const ACCESS_LOG_ON = 'pc-sa-warm-log'
export const ACCESS_LOG_OFF = 'pc-sa-warm-nolog'
/** Target 6 is read from rounds this long at least. */
export const ACCESS_LOG_ROUND_S = 10

const RATIOS = [...AGAINST_FLOOR, ...REPEATED_JWT, ...SELF_ANSWERED, FASTIFY_TARGET]

/** The scenarios a CPU target compares (for the notes on a miss); empty for other targets. */
export function comparedScenarios(targetId: string): string[] {
  if (targetId === RSA_FRESH_TARGET) return ['pc-rs256-fresh', KOA_FLOOR]
  if (targetId === ACCESS_LOG_TARGET) return [ACCESS_LOG_ON, ACCESS_LOG_OFF]
  const found = RATIOS.find((t) => t.id === targetId)
  if (found === undefined) return []
  // A local answer is also set beside Koa's own local answers, thrown and set.
  const koaAnswers = found.status === 401 ? ['koa-floor-401', 'koa-floor-401-set'] : []
  return [found.scenario, found.baseline, ...koaAnswers]
}

/** A share of answers below this with the expected status measures something else. */
export const EXPECTED_SHARE = 0.99

/** True when the generator counted the answers and nearly all had `status`. */
export function answeredAs(summary: ScenarioSummary, status: number): boolean {
  if (summary.statuses === undefined) return false
  const answered = sumValues(summary.statuses) + summary.errors
  return answered > 0 && (summary.statuses[String(status)] ?? 0) >= EXPECTED_SHARE * answered
}

function statusCounts(summary: ScenarioSummary | undefined): string {
  if (summary?.statuses === undefined) return 'answers not counted'
  const counts = Object.entries(summary.statuses).map(
    ([status, count]) => `${count.toLocaleString('en-US')} × ${status}`,
  )
  return `answers: ${counts.join(', ') || 'none'}`
}

const cpuOf = (summaries: readonly ScenarioSummary[], id: string): number | null =>
  summaries.find((s) => s.scenario === id)?.cpuUsPerRequest ?? null

/**
 * The ratio of `scenario` to `baseline` in each round that measured both, lowest and highest; null
 * with fewer than two such rounds. Beside the ratio of the medians it shows how far the host moved
 * a reading between rounds of one run.
 */
export function roundRatioRange(
  samples: readonly Sample[],
  scenario: string,
  baseline: string,
): { readonly low: number; readonly high: number } | null {
  const ratios: number[] = []
  for (const sample of samples) {
    if (sample.scenario !== scenario) continue
    const base = samples.find((s) => s.scenario === baseline && s.round === sample.round)
    if (base !== undefined && base.cpuUsPerRequest > 0)
      ratios.push(sample.cpuUsPerRequest / base.cpuUsPerRequest)
  }
  if (ratios.length < 2) return null
  return { low: Math.min(...ratios), high: Math.max(...ratios) }
}

function evaluate(
  ratioTarget: CpuRatio,
  summaries: readonly ScenarioSummary[],
  samples: readonly Sample[],
): TargetResult {
  const find = (id: string) => summaries.find((s) => s.scenario === id)
  const scenario = find(ratioTarget.scenario)
  const baseline = find(ratioTarget.baseline)
  const expected = ratioTarget.status
  const counted =
    expected === undefined || (scenario !== undefined && answeredAs(scenario, expected))
  const description =
    expected === undefined
      ? ratioTarget.description
      : `${ratioTarget.description} (${statusCounts(scenario)})`
  return target(
    ratioTarget.source,
    ratioTarget.id,
    description,
    `≤ ${ratioTarget.bound.toFixed(2)} ×`,
    counted ? ratio(scenario?.cpuUsPerRequest, baseline?.cpuUsPerRequest) : null,
    (v) => v <= ratioTarget.bound,
    (v) => {
      const range = roundRatioRange(samples, ratioTarget.scenario, ratioTarget.baseline)
      const rounds =
        range === null ? '' : `; round by round ${range.low.toFixed(2)}–${range.high.toFixed(2)} ×`
      return `${ratioText(v, ratioTarget.bound)} × (${scenario?.cpuUsPerRequest.toFixed(1)} / ${baseline?.cpuUsPerRequest.toFixed(1)} µs${rounds})`
    },
  )
}

/**
 * A ratio to two decimals, or as many more (up to four) as it takes not to print the bound
 * itself: "1.15 ×" beside "≤ 1.15 ×" and a MISS reads as a mistake when the ratio was 1.1504.
 */
export function ratioText(value: number, bound: number): string {
  if (value === bound) return value.toFixed(2)
  for (let digits = 2; digits < 4; digits++) {
    const text = value.toFixed(digits)
    if (text !== bound.toFixed(digits)) return text
  }
  return value.toFixed(4)
}

/** Target 4's bound: the Koa floor's CPU per request plus 1.5 plain RS256 verifies (µs). */
export function freshRs256Bound(floorUs: number | null, verifyUs: number | null): number | null {
  if (floorUs === null || verifyUs === null) return null
  if (!Number.isFinite(floorUs) || !Number.isFinite(verifyUs)) return null
  return floorUs + 1.5 * verifyUs
}

function freshRs256Target(
  summaries: readonly ScenarioSummary[],
  rsaVerify: RsaVerifyResult | null,
): TargetResult {
  const floor = cpuOf(summaries, KOA_FLOOR)
  const verify = rsaVerify?.cpuUsPerVerify ?? null
  const bound = freshRs256Bound(floor, verify)
  return target(
    '23 #4',
    RSA_FRESH_TARGET,
    'fresh RS256 per request ≤ Koa floor + 1.5× a plain `node:crypto` verify measured in the same run',
    '≤ floor + 1.5 × verify',
    bound === null ? null : cpuOf(summaries, 'pc-rs256-fresh'),
    (v) => v <= (bound ?? 0),
    (v) =>
      `${v.toFixed(1)} µs (bound ${bound?.toFixed(1)} = ${floor?.toFixed(1)} + 1.5 × ${verify?.toFixed(1)} µs)`,
  )
}

/**
 * Target 6: what the access log adds to a request, in µs of CPU: the warm service-account row
 * with it on less the same scenario with it off. Read only from rounds of 10 s or more (shorter
 * rounds hide its cost); `roundS` null when the round length is not known.
 */
export function accessLogTarget(
  summaries: readonly ScenarioSummary[],
  roundS: number | null,
): TargetResult {
  const on = cpuOf(summaries, ACCESS_LOG_ON)
  const off = cpuOf(summaries, ACCESS_LOG_OFF)
  const cost = on === null || off === null ? null : on - off
  const required = '≤ 3 µs'
  const result = target(
    '23 #6',
    ACCESS_LOG_TARGET,
    'access log on: ≤ 3 µs per request over the same scenario with it off, in 10 s rounds',
    required,
    cost,
    (v) => v <= 3,
    (v) => `${v.toFixed(1)} µs (${on?.toFixed(1)} − ${off?.toFixed(1)} µs)`,
  )
  if (result.status === 'NOT MEASURED' || (roundS !== null && roundS >= ACCESS_LOG_ROUND_S))
    return result
  const rounds = roundS === null ? 'rounds of unknown length' : `${roundS} s rounds`
  return { ...result, shown: `${result.shown} in ${rounds}`, status: 'NOT MEASURED' }
}

/** Targets 1–6: CPU per request against the Koa floor and each other, in the order. */
export function cpuTargets(
  summaries: readonly ScenarioSummary[],
  rsaVerify: RsaVerifyResult | null,
  roundS: number | null,
  samples: readonly Sample[] = [],
): TargetResult[] {
  return [
    ...AGAINST_FLOOR.map((ratioTarget) => evaluate(ratioTarget, summaries, samples)),
    ...REPEATED_JWT.map((ratioTarget) => evaluate(ratioTarget, summaries, samples)),
    freshRs256Target(summaries, rsaVerify),
    ...SELF_ANSWERED.map((ratioTarget) => evaluate(ratioTarget, summaries, samples)),
    accessLogTarget(summaries, roundS),
  ]
}

/** Target 10: the gateway's repeated-RS256 row against the Fastify peer's, CPU per request. */
export function fastifyTarget(
  summaries: readonly ScenarioSummary[],
  samples: readonly Sample[] = [],
): TargetResult {
  return evaluate(FASTIFY_TARGET, summaries, samples)
}
