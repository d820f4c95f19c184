import { PASS_ATTEMPTS, SLOW_HOST } from '../lib/host-gate.js'
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
  const values = readings.flatMap((reading) =>
    reading.afterUsPerVerify === undefined
      ? [reading.cpuUsPerVerify]
      : [reading.cpuUsPerVerify, reading.afterUsPerVerify],
  )
  const fastest = Math.min(...values)
  const slowest = Math.max(...values)
  const spread = slowest / fastest
  const gated = readings.some((reading) => reading.afterUsPerVerify !== undefined)
  const pass = readings.some((reading) => reading.slice > 1) ? 'pass over the scenarios' : 'round'
  const listed = readings
    .map((reading) =>
      reading.afterUsPerVerify === undefined
        ? reading.cpuUsPerVerify.toFixed(1)
        : `${reading.cpuUsPerVerify.toFixed(1)}/${reading.afterUsPerVerify.toFixed(1)}`,
    )
    .join(', ')
  const retaken = readings.filter((reading) => (reading.attempts ?? 1) > 1).length
  const when = gated ? `before and after each ${pass} (before/after)` : `before each ${pass}`
  const gate = gated
    ? ` A ${pass} is measured only once a reading is within ${SLOW_HOST.toFixed(2)} × the run's fastest, and measured again (up to ${PASS_ATTEMPTS} times, the attempt with the fastest readings kept) when a reading at either end is not: ${retaken} of ${readings.length} were measured again.`
    : ''
  return {
    line: `Machine speed during the throughput measurements: a plain node:crypto RS256 verify on the system-under-test CPU, read ${when}, took ${listed} µs of CPU (slowest ${spread.toFixed(2)} × the fastest).${gate} Steal and other processes' CPU stay at zero when the host under this virtual machine is busy; this reading does not.`,
    spread,
    uneven: spread > UNEVEN_SPREAD,
  }
}
