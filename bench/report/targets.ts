import { ratio } from '../lib/stats.js'
import { memoryTargets } from './memory-targets.js'
import type {
  FloodResult,
  LatencyResult,
  MemoryResult,
  RevocationResult,
  ScenarioSummary,
} from '../lib/types.js'

export type TargetStatus = 'PASS' | 'MISS' | 'NOT MEASURED'

export interface TargetResult {
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
}

export function target(
  id: string,
  description: string,
  required: string,
  measured: number | null,
  pass: (value: number) => boolean,
  format: (value: number) => string,
): TargetResult {
  if (measured === null || !Number.isFinite(measured)) {
    return { id, description, required, measured: null, shown: '—', status: 'NOT MEASURED' }
  }
  return {
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

/** Issue 8 point 2, every target evaluated from one run's results. */
export function evaluateTargets(inputs: TargetInputs): TargetResult[] {
  const rps = (id: string) => inputs.summaries.find((s) => s.scenario === id)?.rps ?? null
  const results = [
    target(
      'sa-vs-nginx',
      'warm service-account token through Portcullis vs nginx plain proxy',
      '≥ 0.45 ×',
      ratio(rps('pc-sa-warm'), rps('nginx')),
      (v) => v >= 0.45,
      times,
    ),
    target(
      'jwt-vs-haproxy',
      'repeated RS256 JWT through Portcullis vs HAProxy jwt_verify RS256',
      '≥ 1.0 ×',
      ratio(rps('pc-rs256-same'), rps('haproxy-jwt')),
      (v) => v >= 1.0,
      times,
    ),
    target(
      'auth-vs-excluded',
      'authenticated (warm service-account token) vs the same gateway on an excluded route',
      '≥ 0.9 ×',
      ratio(rps('pc-sa-warm'), rps('pc-excluded')),
      (v) => v >= 0.9,
      times,
    ),
    target(
      'latency-p50',
      `added latency at ${inputs.latency?.rate ?? 'a fixed'} req/s, p50 (gateway − direct)`,
      '≤ 0.3 ms',
      inputs.latency?.addedP50Us ?? null,
      (v) => v <= 300,
      ms,
    ),
    target(
      'latency-p99',
      `added latency at ${inputs.latency?.rate ?? 'a fixed'} req/s, p99 (gateway − direct)`,
      '≤ 1.5 ms',
      inputs.latency?.addedP99Us ?? null,
      (v) => v <= 1_500,
      ms,
    ),
    target(
      'pg-nocache',
      'service-account token, cache off (TTL 0), PostgreSQL',
      '≥ 5,000 req/s',
      rps('pc-sa-pg-nocache'),
      (v) => v >= 5_000,
      (v) => `${Math.round(v).toLocaleString('en-US')} req/s`,
    ),
    target(
      'flood',
      'good clients’ throughput lost to a bad-token flood from one (throttled) address',
      '≤ 20 %',
      inputs.flood?.drop ?? null,
      (v) => v <= 0.2,
      (v) => `${(v * 100).toFixed(1)} %`,
    ),
  ]
  results.push(...memoryTargets(inputs.memory))
  results.push(
    target(
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
  )
  return results
}
