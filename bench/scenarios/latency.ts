import { runFixedRate } from '../load/fixed-rate.js'
import { measure } from '../lib/measure.js'
import { median } from '../lib/stats.js'
import type { LatencyResult } from '../lib/types.js'
import { AUTH_PATH } from './catalog.js'
import type { World } from './world.js'

export interface LatencyOptions {
  readonly rate: number
  readonly rounds: number
  readonly durationS: number
  readonly log: (line: string) => void
}

/**
 * Open-loop requests at a fixed moderate rate, alternating direct and through the gateway (warm
 * service-account token); the gateway's added latency is the difference of the medians over rounds.
 */
export async function runLatency(world: World, options: LatencyOptions): Promise<LatencyResult> {
  const gateway = world.systems.get('gw-main')
  const token = world.credentials.get('sa-main')
  if (gateway === undefined || token === undefined) throw new Error('gateway main is not running')
  const targets = [
    { name: 'direct' as const, url: `${world.upstream.baseUrl}${AUTH_PATH}`, headers: {} },
    { name: 'gateway' as const, url: `${gateway.baseUrl}${AUTH_PATH}`, headers: token.headers },
  ]
  const p50 = { direct: [] as number[], gateway: [] as number[] }
  const p99 = { direct: [] as number[], gateway: [] as number[] }
  const requests = { direct: 0, gateway: 0 }
  const foreign: number[] = []
  for (let round = 1; round <= options.rounds; round++) {
    for (const target of targets) {
      const measured = await measure(
        { sut: gateway.pids, upstream: world.upstream.pids, outside: [] },
        () =>
          runFixedRate(
            {
              url: target.url,
              rate: options.rate,
              durationS: options.durationS,
              warmupS: 1,
              connections: 16,
              headers: target.headers,
              expectStatus: 200,
            },
            world.pinning.generator,
          ),
      )
      const load = measured.load
      if (load.unexpected > 0 || load.errors > 0) {
        options.log(
          `! latency ${target.name}: ${load.unexpected} unexpected, ${load.errors} errors`,
        )
      }
      p50[target.name].push(load.p50Us)
      p99[target.name].push(load.p99Us)
      requests[target.name] += load.requests
      foreign.push(measured.disturbance.foreignCores)
      options.log(
        `latency round ${round} ${target.name.padEnd(8)} @${options.rate}/s  p50 ${(load.p50Us / 1000).toFixed(3)} ms  p99 ${(load.p99Us / 1000).toFixed(3)} ms`,
      )
    }
  }
  const direct = { p50Us: median(p50.direct), p99Us: median(p99.direct), requests: requests.direct }
  const through = {
    p50Us: median(p50.gateway),
    p99Us: median(p99.gateway),
    requests: requests.gateway,
  }
  return {
    rate: options.rate,
    direct,
    gateway: through,
    addedP50Us: through.p50Us - direct.p50Us,
    addedP99Us: through.p99Us - direct.p99Us,
    foreignCores: median(foreign),
  }
}
