import type { BenchReport } from '../lib/types.js'

/**
 * The slowest reading may exceed the fastest by this much before a run is called uneven: the
 * check's own spread on a quiet machine is a few percent.
 */
const UNEVEN_SPREAD = 1.15

export interface HostSpeed {
  /** The readings in words, for the machine section and the printed summary. */
  readonly line: string
  /** Slowest over fastest. */
  readonly spread: number
  readonly uneven: boolean
}

/** The machine's speed over the throughput measurements; null for reports without readings. */
export function hostSpeedOf(report: Pick<BenchReport, 'hostSpeed'>): HostSpeed | null {
  const readings = report.hostSpeed ?? []
  if (readings.length === 0) return null
  const values = readings.map((reading) => reading.cpuUsPerVerify)
  const fastest = Math.min(...values)
  const slowest = Math.max(...values)
  const spread = slowest / fastest
  const when = readings.some((reading) => reading.slice > 1) ? 'pass over the scenarios' : 'round'
  return {
    line: `Machine speed during the throughput measurements: a plain node:crypto RS256 verify on the system-under-test CPU, read before each ${when}, took ${values.map((value) => value.toFixed(1)).join(', ')} µs of CPU (slowest ${spread.toFixed(2)} × the fastest). Steal and other processes' CPU stay at zero when the host under this virtual machine is busy; this reading does not.`,
    spread,
    uneven: spread > UNEVEN_SPREAD,
  }
}
