import { runFixedRate } from '../load/fixed-rate.js'
import type { LoadGenerator } from '../load/generator.js'
import { awaitQuiet, measure, type Measured } from '../lib/measure.js'
import { whilePaused } from '../lib/pause.js'
import { addCounts, median, sumValues } from '../lib/stats.js'
import type { FloodResult } from '../lib/types.js'
import { AUTH_PATH } from './catalog.js'
import { otherSystemPids, type World } from './world.js'

export interface FloodOptions {
  readonly rate: number
  readonly rounds: number
  readonly durationS: number
  readonly connections: number
  readonly tokensFile: string
  readonly log: (line: string) => void
}

/** The good clients and the flood pose as different addresses (the gateway trusts 127.0.0.1). */
const GOOD_ADDRESS = '127.0.0.2'
const FLOOD_ADDRESS = '127.0.0.3'

/**
 * Good clients (warm service-account token) measured alone, then while one address floods the
 * gateway with well-formed unknown `svc_pat_` tokens at a fixed rate (throttled after
 * `max_failed_lookups` failures). Alternated over rounds; medians reported.
 */
export async function runFlood(
  world: World,
  generator: LoadGenerator,
  options: FloodOptions,
): Promise<FloodResult> {
  const gateway = world.systems.get('gw-main')
  const token = world.credentials.get('sa-main')
  if (gateway === undefined || token === undefined) throw new Error('gateway main is not running')
  const good = () =>
    generator.run({
      url: `${gateway.baseUrl}${AUTH_PATH}`,
      connections: options.connections,
      durationS: options.durationS,
      headers: { ...token.headers, 'x-forwarded-for': GOOD_ADDRESS },
    })
  const accounting = { sut: gateway.pids, upstream: world.upstream.pids, outside: [] }
  const alone: number[] = []
  const flooded: number[] = []
  const floodRps: number[] = []
  const foreign: number[] = []
  const goodCpu: number[] = []
  const floodCpu: number[] = []
  const busy: number[] = []
  const statuses: Record<string, number> = {}
  for (let round = 1; round <= options.rounds; round++) {
    await whilePaused(otherSystemPids(world, 'gw-main'), async () => {
      const quiet = await measure(accounting, good)
      alone.push(quiet.load.requests / quiet.load.durationS)
      // Wait for a quiet machine before the flood starts, not after (it runs for a fixed time).
      await awaitQuiet()
      const flood = runFixedRate(
        {
          url: `${gateway.baseUrl}${AUTH_PATH}`,
          rate: options.rate,
          durationS: options.durationS + 1,
          warmupS: 1,
          connections: 20,
          headers: { 'x-forwarded-for': FLOOD_ADDRESS },
          tokensFile: options.tokensFile,
        },
        world.pinning.generator,
      )
      await new Promise((resolve) => setTimeout(resolve, 1_000))
      const loud = await measure(accounting, good, { awaitQuiet: false })
      const floodResult = await flood.result
      flooded.push(loud.load.requests / loud.load.durationS)
      floodRps.push(floodResult.requests / floodResult.durationS)
      const cost = floodCost(quiet, loud, floodRps.at(-1) ?? 0)
      goodCpu.push(cost.goodCpuUs)
      floodCpu.push(cost.floodCpuUs)
      busy.push(cost.busyUnderFlood)
      foreign.push(quiet.disturbance.foreignCores, loud.disturbance.foreignCores)
      addCounts(statuses, floodResult.statuses ?? {})
      if (loud.load.unexpected > 0)
        options.log(`! flood: good clients got ${loud.load.unexpected} non-2xx`)
      options.log(
        `flood round ${round}: good alone ${Math.round(alone.at(-1) ?? 0)} req/s, under flood ${Math.round(flooded.at(-1) ?? 0)} req/s; flood ${Math.round(floodRps.at(-1) ?? 0)} req/s (${sumValues(floodResult.statuses ?? {})} answered, ${floodResult.skipped} not sent)`,
      )
    })
  }
  const aloneRps = median(alone)
  const underFloodRps = median(flooded)
  return {
    aloneRps,
    underFloodRps,
    drop: 1 - underFloodRps / aloneRps,
    floodRate: options.rate,
    floodAchievedRps: median(floodRps),
    floodStatuses: statuses,
    foreignCores: median(foreign),
    goodCpuUs: median(goodCpu),
    floodCpuUs: median(floodCpu),
    busyUnderFlood: median(busy),
  }
}

/**
 * What the flood costs the gateway where it runs: each flood request arrives alone (a wake-up,
 * a read and a write of its own) where the closed-loop 429 row reads many a wake-up, so the
 * row's CPU per request understates it. Good requests under the flood are charged at their cost
 * alone; the rest of the gateway's CPU is the flood's.
 */
export function floodCost(
  alone: Pick<Measured, 'load' | 'cpu'>,
  flooded: Pick<Measured, 'load' | 'cpu'>,
  floodRps: number,
): { goodCpuUs: number; floodCpuUs: number; busyUnderFlood: number } {
  const goodCpuS = alone.load.requests > 0 ? alone.cpu.sutS / alone.load.requests : 0
  const floodRequests = floodRps * flooded.cpu.wallS
  const floodCpuS = flooded.cpu.sutS - flooded.load.requests * goodCpuS
  return {
    goodCpuUs: goodCpuS * 1e6,
    floodCpuUs: floodRequests > 0 ? (floodCpuS / floodRequests) * 1e6 : 0,
    busyUnderFlood: flooded.cpu.wallS > 0 ? flooded.cpu.sutS / flooded.cpu.wallS : 0,
  }
}
