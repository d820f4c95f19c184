import { ratio } from '../lib/stats.js'
import { cpuTargets, selfAnswerTargets } from './cpu-targets.js'
import { memoryTargets } from './memory-targets.js'
import type {
  FloodResult,
  LatencyResult,
  MemoryResult,
  RevocationResult,
  RsaVerifyResult,
  ScenarioSummary,
} from '../lib/types.js'

export type TargetStatus = 'PASS' | 'MISS' | 'NOT MEASURED'

export interface TargetResult {
  /** Where the target comes from: `8` (issue 8, point 2), `14 #5` (issue 14, target 5). */
  readonly source: string
  readonly id: string
  readonly description: string
  readonly required: string
  /** The measured value (a ratio, µs, req/s, MB, ms); null when not measured. */
  readonly measured: number | null
  readonly shown: string
  readonly status: TargetStatus
}

export interface TargetInputs {
  readonly summaries: readonly ScenarioSummary[]
  readonly latency: LatencyResult | null
  readonly flood: FloodResult | null
  readonly memory: readonly MemoryResult[]
  readonly revocation: RevocationResult | null
  /** The plain node:crypto RS256 verify of the same run (absent from older reports). */
  readonly rsaVerify?: RsaVerifyResult | null
}

export function target(
  source: string,
  id: string,
  description: string,
  required: string,
  measured: number | null,
  pass: (value: number) => boolean,
  format: (value: number) => string,
): TargetResult {
  if (measured === null || !Number.isFinite(measured)) {
    return {
      source,
      id,
      description,
      required,
      measured: null,
      shown: '—',
      status: 'NOT MEASURED',
    }
  }
  return {
    source,
    id,
    description,
    required,
    measured,
    shown: format(measured),
    status: pass(measured) ? 'PASS' : 'MISS',
  }
}

const times = (value: number) => `${value.toFixed(2)} ×`
const ms = (us: number) => `${(us / 1000).toFixed(3)} ms`

const ISSUE_8 = '8'

/** Issue 8's throughput targets beside nginx and HAProxy, and its PostgreSQL and revocation ones. */
function issue8Targets(inputs: TargetInputs): TargetResult[] {
  const rps = (id: string) => inputs.summaries.find((s) => s.scenario === id)?.rps ?? null
  return [
    target(
      ISSUE_8,
      'sa-vs-nginx',
      'warm service-account token through Portcullis vs nginx plain proxy',
      '≥ 0.45 ×',
      ratio(rps('pc-sa-warm'), rps('nginx')),
      (v) => v >= 0.45,
      times,
    ),
    target(
      ISSUE_8,
      'jwt-vs-haproxy',
      'repeated RS256 JWT through Portcullis vs HAProxy jwt_verify RS256',
      '≥ 1.0 ×',
      ratio(rps('pc-rs256-same'), rps('haproxy-jwt')),
      (v) => v >= 1.0,
      times,
    ),
    target(
      ISSUE_8,
      'auth-vs-excluded',
      'authenticated (warm service-account token) vs the same gateway on an excluded route',
      '≥ 0.9 ×',
      ratio(rps('pc-sa-warm'), rps('pc-excluded')),
      (v) => v >= 0.9,
      times,
    ),
    target(
      ISSUE_8,
      'pg-nocache',
      'service-account token, cache off (TTL 0), PostgreSQL',
      '≥ 5,000 req/s',
      rps('pc-sa-pg-nocache'),
      (v) => v >= 5_000,
      (v) => `${Math.round(v).toLocaleString('en-US')} req/s`,
    ),
    target(
      ISSUE_8,
      'revocation',
      'revocation reaching a second replica, p99',
      '≤ 100 ms',
      inputs.revocation === null
        ? null
        : // A token B never refused (within 2 s) counts as 2 s.
          inputs.revocation.timedOut > 0
          ? Math.max(inputs.revocation.p99Ms, 2_000)
          : inputs.revocation.p99Ms,
      (v) => v <= 100,
      (v) => `${v.toFixed(1)} ms`,
    ),
  ]
}

/** Issue 14 target 6 (its p50 bound is issue 8's) and issue 8's stricter p99. */
function latencyTargets(latency: LatencyResult | null): TargetResult[] {
  const at = `added latency at ${latency?.rate ?? 'a fixed'} req/s`
  return [
    target(
      `${ISSUE_8}, 14 #6`,
      'latency-p50',
      `${at}, p50 (gateway − direct)`,
      '≤ 0.3 ms',
      latency?.addedP50Us ?? null,
      (v) => v <= 300,
      ms,
    ),
    target(
      '14 #6',
      'latency-p99-issue14',
      `${at}, p99 (gateway − direct)`,
      '≤ 2 ms',
      latency?.addedP99Us ?? null,
      (v) => v <= 2_000,
      ms,
    ),
    target(
      ISSUE_8,
      'latency-p99',
      `${at}, p99 (gateway − direct)`,
      '≤ 1.5 ms',
      latency?.addedP99Us ?? null,
      (v) => v <= 1_500,
      ms,
    ),
  ]
}

/** Issue 8's flood target, which issue 14 target 7 repeats with the flood's real rate stated. */
function floodTarget(flood: FloodResult | null): TargetResult {
  const rate =
    flood === null
      ? ''
      : `; the flood ran at ${Math.round(flood.floodAchievedRps).toLocaleString('en-US')} req/s of ${flood.floodRate.toLocaleString('en-US')} asked`
  return target(
    `${ISSUE_8}, 14 #7`,
    'flood',
    `good clients’ throughput lost to a bad-token flood from one (throttled) address${rate}`,
    '≤ 20 %',
    flood?.drop ?? null,
    (v) => v <= 0.2,
    (v) => `${(v * 100).toFixed(1)} %`,
  )
}

/** Every target of issues 14 and 8 (point 2), evaluated from one run's results. */
export function evaluateTargets(inputs: TargetInputs): TargetResult[] {
  return [
    ...cpuTargets(inputs.summaries, inputs.rsaVerify ?? null),
    ...latencyTargets(inputs.latency),
    ...selfAnswerTargets(inputs.summaries),
    floodTarget(inputs.flood),
    ...memoryTargets(inputs.memory),
    ...issue8Targets(inputs),
  ]
}
