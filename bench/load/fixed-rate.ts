import { fileURLToPath } from 'node:url'
import type { LoadResult } from '../lib/types.js'
import { runJsonChild, type RunningLoad } from './generator.js'

const CHILD = fileURLToPath(new URL('./fixed-rate-child.ts', import.meta.url))

export interface FixedRateSpec {
  readonly url: string
  /** Requests per second, sent open-loop whatever the answers' latency. */
  readonly rate: number
  readonly durationS: number
  /** Sent first and not measured. */
  readonly warmupS: number
  readonly connections: number
  readonly headers: Readonly<Record<string, string>>
  readonly tokensFile?: string
  /** Statuses other than this count as unexpected. */
  readonly expectStatus?: number
}

export interface FixedRateResult extends LoadResult {
  /** Sends dropped because too many requests were outstanding (the server fell behind). */
  readonly skipped: number
}

export interface RunningFixedRate extends RunningLoad {
  readonly result: Promise<FixedRateResult>
}

export function runFixedRate(spec: FixedRateSpec, cpus: string | null): RunningFixedRate {
  return runJsonChild<FixedRateResult>(CHILD, spec, cpus, 'fixed-rate generator')
}
