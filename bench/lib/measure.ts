import type { RunningLoad } from '../load/generator.js'
import { loadAverage, processTicks, systemTimes, TICKS_PER_SECOND, treeTicks } from './proc.js'
import type { CpuUsage, Disturbance, LoadResult } from './types.js'

/** Which processes a measurement charges to whom. */
export interface Accounting {
  readonly sut: readonly number[]
  readonly upstream: readonly number[]
  /** Started by the harness but outside its process tree (PostgreSQL daemonizes). */
  readonly outside: readonly number[]
}

interface Snapshot {
  readonly at: number
  readonly busy: number
  readonly steal: number
  readonly sut: number
  readonly upstream: number
  readonly ours: number
  readonly outside: number
  readonly load: number
}

function snapshot(accounting: Accounting): Snapshot {
  const system = systemTimes()
  return {
    at: performance.now(),
    busy: system.busy,
    steal: system.steal,
    sut: treeTicks(accounting.sut),
    upstream: treeTicks(accounting.upstream),
    ours: treeTicks([process.pid]),
    outside: treeTicks(accounting.outside),
    load: loadAverage()[0],
  }
}

/** Waiting for a quiet machine before a measurement (`--wait-quiet`). */
export interface QuietWait {
  /** Others' CPU, in cores over one second, below which a measurement may start. */
  readonly maxCores: number
  /** Longest wait; after it the measurement runs anyway (and is reported as disturbed). */
  readonly maxWaitS: number
}

let quiet: QuietWait | null = null
export function waitForQuiet(setting: QuietWait | null): void {
  quiet = setting
}

/** Others' CPU over the next second, in cores. */
async function othersOverOneSecond(): Promise<number> {
  const before = { busy: systemTimes().busy, ours: treeTicks([process.pid]), at: performance.now() }
  await new Promise((resolve) => setTimeout(resolve, 1_000))
  const wall = (performance.now() - before.at) / 1000
  const others = systemTimes().busy - before.busy - (treeTicks([process.pid]) - before.ours)
  return Math.max(0, others) / TICKS_PER_SECOND / wall
}

/** Seconds waited for the machine to calm down (0 when not asked to wait). */
export async function awaitQuiet(): Promise<number> {
  if (quiet === null) return 0
  const started = performance.now()
  while ((performance.now() - started) / 1000 < quiet.maxWaitS) {
    if ((await othersOverOneSecond()) <= quiet.maxCores) break
  }
  return (performance.now() - started) / 1000
}

export interface Measured {
  readonly load: LoadResult
  readonly cpu: CpuUsage
  readonly disturbance: Disturbance
}

/**
 * Runs one load generator and charges the CPU used meanwhile: to the system under test, the
 * upstream, the generator, the rest of the harness, and everybody else on the machine (foreign).
 */
export async function measure(
  accounting: Accounting,
  begin: () => RunningLoad,
  options: { awaitQuiet?: boolean } = {},
): Promise<Measured> {
  const waitedS = options.awaitQuiet === false ? 0 : await awaitQuiet()
  const before = snapshot(accounting)
  const running = begin()
  const pid = running.child.pid ?? -1
  // The generator's ticks vanish from /proc when it exits: keep the last reading.
  let generator = 0
  const poll = setInterval(() => {
    generator = Math.max(generator, processTicks(pid))
  }, 100)
  let load: LoadResult
  try {
    load = await running.result
  } finally {
    clearInterval(poll)
  }
  const after = snapshot(accounting)
  const s = (ticks: number) => ticks / TICKS_PER_SECOND
  const wallS = (after.at - before.at) / 1000
  const ours = after.ours - before.ours + generator
  const outside = after.outside - before.outside
  const foreign = Math.max(0, after.busy - before.busy - ours - outside)
  const cpu: CpuUsage = {
    sutS: s(after.sut - before.sut),
    upstreamS: s(after.upstream - before.upstream),
    generatorS: s(generator),
    harnessS: s(ours - generator - (after.sut - before.sut) - (after.upstream - before.upstream)),
    outsideS: s(outside),
    foreignS: s(foreign),
    stealS: s(after.steal - before.steal),
    wallS,
  }
  return {
    load,
    cpu,
    disturbance: {
      loadBefore: before.load,
      loadAfter: after.load,
      foreignCores: cpu.foreignS / wallS,
      stealCores: cpu.stealS / wallS,
      waitedS,
    },
  }
}
