import type { Measured } from './measure.js'
import { addCounts } from './stats.js'
import type { LoadResult } from './types.js'

/**
 * How many slices a round's measurement of `durationS` is cut into: slices of about `sliceS`,
 * at least one; `sliceS` 0 is one piece. A slice shorter than a second would mostly measure the
 * generator's start.
 */
export function sliceCount(durationS: number, sliceS: number): number {
  if (sliceS <= 0) return 1
  return Math.max(1, Math.round(durationS / Math.max(1, sliceS)))
}

/** A request-weighted mean of one percentile over slices: the merged distribution is not kept. */
function weighted(slices: readonly LoadResult[], pick: (load: LoadResult) => number): number {
  const requests = slices.reduce((sum, load) => sum + load.requests, 0)
  if (requests === 0) return slices.length === 0 ? Number.NaN : pick(slices[0] as LoadResult)
  return slices.reduce((sum, load) => sum + pick(load) * load.requests, 0) / requests
}

/**
 * One measurement from the slices of one scenario in one round, as if measured at once: counts
 * and CPU seconds add up; cores are the sums over the summed wall time; p50/p99 are request-weighted.
 */
export function combineSlices(slices: readonly Measured[]): Measured {
  const first = slices[0]
  const last = slices.at(-1)
  if (first === undefined || last === undefined) throw new Error('no slices to combine')
  if (slices.length === 1) return first
  const loads = slices.map((slice) => slice.load)
  const sum = (pick: (slice: Measured) => number) =>
    slices.reduce((total, slice) => total + pick(slice), 0)
  const withStatuses = loads.filter((load) => load.statuses !== undefined)
  const load: LoadResult = {
    requests: sum((s) => s.load.requests),
    durationS: sum((s) => s.load.durationS),
    unexpected: sum((s) => s.load.unexpected),
    errors: sum((s) => s.load.errors),
    p50Us: weighted(loads, (l) => l.p50Us),
    p99Us: weighted(loads, (l) => l.p99Us),
    ...(withStatuses.length === 0
      ? {}
      : {
          statuses: withStatuses.reduce<Record<string, number>>(
            (total, l) => addCounts(total, l.statuses ?? {}),
            {},
          ),
        }),
  }
  const wallS = sum((s) => s.cpu.wallS)
  const cpu = {
    sutS: sum((s) => s.cpu.sutS),
    upstreamS: sum((s) => s.cpu.upstreamS),
    generatorS: sum((s) => s.cpu.generatorS),
    harnessS: sum((s) => s.cpu.harnessS),
    outsideS: sum((s) => s.cpu.outsideS),
    foreignS: sum((s) => s.cpu.foreignS),
    stealS: sum((s) => s.cpu.stealS),
    wallS,
  }
  return {
    load,
    cpu,
    disturbance: {
      loadBefore: first.disturbance.loadBefore,
      loadAfter: last.disturbance.loadAfter,
      foreignCores: wallS > 0 ? cpu.foreignS / wallS : 0,
      stealCores: wallS > 0 ? cpu.stealS / wallS : 0,
      waitedS: sum((s) => s.disturbance.waitedS),
    },
  }
}
