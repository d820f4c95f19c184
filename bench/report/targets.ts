import { cpuTargets, fastifyTarget } from './cpu-targets.js'
import { memoryTargets } from './memory-targets.js'
import { ms } from './table.js'
import type {
  FloodResult,
  LatencyResult,
  MemoryResult,
  RevocationResult,
  RsaVerifyResult,
  Sample,
  ScenarioSummary,
} from '../lib/types.js'

export type TargetStatus = 'PASS' | 'MISS' | 'NOT MEASURED'

export interface TargetResult {
  /** Where the target comes from: `23 #5` (issue 23, target 5). */
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
  /** The run's options: target 6 needs the length of its rounds. */
  readonly options?: { readonly durationS: number }
  /** Every measurement of every round: a ratio target also shows its range round by round. */
  readonly samples?: readonly Sample[]
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

const inMs = (us: number) => `${ms(us)} ms`

/** Target 7, at the rate the latency phase ran (2,000 req/s unless `--latency-rate` said other). */
function latencyTargets(latency: LatencyResult | null): TargetResult[] {
  const rate = latency === null ? '2,000' : latency.rate.toLocaleString('en-US')
  return [
    target(
      '23 #7',
      'latency-p50',
      `added latency at ${rate} req/s: p50 ≤ 0.3 ms`,
      '≤ 0.3 ms',
      latency?.addedP50Us ?? null,
      (v) => v <= 300,
      inMs,
    ),
    target(
      '23 #7',
      'latency-p99',
      `added latency at ${rate} req/s: p99 ≤ 2 ms`,
      '≤ 2 ms',
      latency?.addedP99Us ?? null,
      (v) => v <= 2_000,
      inMs,
    ),
  ]
}

/** Target 8, with the rate the flood reached stated. */
function floodTarget(flood: FloodResult | null): TargetResult {
  const rate =
    flood === null
      ? ''
      : ` (it ran at ${Math.round(flood.floodAchievedRps).toLocaleString('en-US')} req/s of ${flood.floodRate.toLocaleString('en-US')} asked)`
  return target(
    '23 #8',
    'flood',
    `flood: good clients lose ≤ 20 % while a bad-token flood runs at a rate the generator reaches${rate}`,
    '≤ 20 %',
    flood?.drop ?? null,
    (v) => v <= 0.2,
    (v) => `${(v * 100).toFixed(1)} %`,
  )
}

/** Issue 23's ten targets, in its order, evaluated from one run's results. */
export function evaluateTargets(inputs: TargetInputs): TargetResult[] {
  return [
    ...cpuTargets(
      inputs.summaries,
      inputs.rsaVerify ?? null,
      inputs.options?.durationS ?? null,
      inputs.samples,
    ),
    ...latencyTargets(inputs.latency),
    floodTarget(inputs.flood),
    ...memoryTargets(inputs.memory),
    fastifyTarget(inputs.summaries, inputs.samples),
  ]
}
