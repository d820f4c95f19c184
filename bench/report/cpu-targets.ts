import { ratio, sumValues } from '../lib/stats.js'
import type { RsaVerifyResult, ScenarioSummary } from '../lib/types.js'
import { target, type TargetResult } from './targets.js'

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

const FLOOR = 'node-floor'

const cpuRatio = (
  id: string,
  source: string,
  description: string,
  scenario: string,
  baseline: string,
  bound: number,
  status?: number,
): CpuRatio => ({ id, source, description, scenario, baseline, bound, status })

/** Issue 14 targets 1–4. */
const PROXIED: readonly CpuRatio[] = [
  cpuRatio(
    'cpu-sa-warm-vs-floor',
    '14 #1',
    'warm service-account token vs the bare Node proxy',
    'pc-sa-warm',
    FLOOR,
    1.35,
  ),
  cpuRatio(
    'cpu-excluded-vs-floor',
    '14 #2',
    'excluded route (/health) vs the bare Node proxy',
    'pc-excluded',
    FLOOR,
    1.2,
  ),
  cpuRatio(
    'cpu-sa-warm-vs-excluded',
    '14 #3',
    'authentication: warm service-account token vs the excluded route',
    'pc-sa-warm',
    'pc-excluded',
    1.1,
  ),
  ...(['RS256', 'ES256', 'HS256'] as const).map((alg) =>
    cpuRatio(
      `cpu-${alg.toLowerCase()}-same-vs-sa`,
      '14 #4',
      `repeated ${alg} JWT (verified-token cache) vs warm service-account token`,
      `pc-${alg.toLowerCase()}-same`,
      'pc-sa-warm',
      1.05,
    ),
  ),
]

/** Issue 14 target 7: a 401 and a 429 each cost at most 0.6 × the bare proxy's whole request. */
const SELF_ANSWERED: readonly CpuRatio[] = [
  cpuRatio(
    'cpu-401-vs-floor',
    '14 #7',
    '401 for a request without a credential vs the bare Node proxy’s proxied request',
    'pc-401',
    FLOOR,
    0.6,
    401,
  ),
  cpuRatio(
    'cpu-429-vs-floor',
    '14 #7',
    '429 for a throttled unknown svc_pat_ token vs the bare Node proxy’s proxied request',
    'pc-429',
    FLOOR,
    0.6,
    429,
  ),
]

export const RSA_FRESH_TARGET = 'cpu-rs256-fresh'

/** The scenarios a CPU target compares (for the notes on a miss); empty for other targets. */
export function comparedScenarios(targetId: string): string[] {
  if (targetId === RSA_FRESH_TARGET) return ['pc-rs256-fresh', FLOOR]
  const found = [...PROXIED, ...SELF_ANSWERED].find((t) => t.id === targetId)
  return found === undefined ? [] : [found.scenario, found.baseline]
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

function evaluate(ratioTarget: CpuRatio, summaries: readonly ScenarioSummary[]): TargetResult {
  const find = (id: string) => summaries.find((s) => s.scenario === id)
  const scenario = find(ratioTarget.scenario)
  const baseline = find(ratioTarget.baseline)
  const expected = ratioTarget.status
  const counted =
    expected === undefined || (scenario !== undefined && answeredAs(scenario, expected))
  const description =
    expected === undefined
      ? `${ratioTarget.description}, CPU per request`
      : `${ratioTarget.description}, CPU per request (${statusCounts(scenario)})`
  return target(
    ratioTarget.source,
    ratioTarget.id,
    description,
    `≤ ${ratioTarget.bound.toFixed(2)} ×`,
    counted ? ratio(scenario?.cpuUsPerRequest, baseline?.cpuUsPerRequest) : null,
    (v) => v <= ratioTarget.bound,
    (v) =>
      `${v.toFixed(2)} × (${scenario?.cpuUsPerRequest.toFixed(1)} / ${baseline?.cpuUsPerRequest.toFixed(1)} µs)`,
  )
}

/** Target 5's bound: the bare proxy's CPU per request plus 1.5 plain RS256 verifies (µs). */
export function freshRs256Bound(floorUs: number | null, verifyUs: number | null): number | null {
  if (floorUs === null || verifyUs === null) return null
  if (!Number.isFinite(floorUs) || !Number.isFinite(verifyUs)) return null
  return floorUs + 1.5 * verifyUs
}

function freshRs256Target(
  summaries: readonly ScenarioSummary[],
  rsaVerify: RsaVerifyResult | null,
): TargetResult {
  const cpu = (id: string) => summaries.find((s) => s.scenario === id)?.cpuUsPerRequest ?? null
  const floor = cpu(FLOOR)
  const verify = rsaVerify?.cpuUsPerVerify ?? null
  const bound = freshRs256Bound(floor, verify)
  return target(
    '14 #5',
    RSA_FRESH_TARGET,
    'fresh RS256 JWT per request, CPU per request, vs the bare Node proxy + 1.5 × a plain node:crypto RSA-2048 verify',
    '≤ floor + 1.5 × verify',
    bound === null ? null : cpu('pc-rs256-fresh'),
    (v) => v <= (bound ?? 0),
    (v) =>
      `${v.toFixed(1)} µs (bound ${bound?.toFixed(1)} = ${floor?.toFixed(1)} + 1.5 × ${verify?.toFixed(1)} µs)`,
  )
}

/** Issue 14 targets 1–5: CPU per request against the bare Node proxy and each other. */
export function cpuTargets(
  summaries: readonly ScenarioSummary[],
  rsaVerify: RsaVerifyResult | null,
): TargetResult[] {
  return [
    ...PROXIED.map((ratioTarget) => evaluate(ratioTarget, summaries)),
    freshRs256Target(summaries, rsaVerify),
  ]
}

/** Issue 14 target 7's CPU rows: answers the gateway gives itself, checked to be what they claim. */
export function selfAnswerTargets(summaries: readonly ScenarioSummary[]): TargetResult[] {
  return SELF_ANSWERED.map((ratioTarget) => evaluate(ratioTarget, summaries))
}
