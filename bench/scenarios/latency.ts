import { runFixedRate } from '../load/fixed-rate.js'
import { measure } from '../lib/measure.js'
import { whilePaused } from '../lib/pause.js'
import type { LatencyPath, LatencyResult } from '../lib/types.js'
import { koaFloorOf, summarizeLatency, type LatencyRounds } from '../report/summarize.js'
import { ms } from '../report/table.js'
import { AUTH_PATH, LATENCY_CONNECTIONS, type SystemKey } from './catalog.js'
import { otherSystemPids, type World } from './world.js'

export interface LatencyOptions {
  readonly rate: number
  readonly rounds: number
  readonly durationS: number
  readonly log: (line: string) => void
}

interface LatencyTarget {
  readonly path: keyof LatencyRounds
  /** As the log lines name it. */
  readonly name: string
  /** The system measured: the others are stopped meanwhile. */
  readonly system: SystemKey
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  /** The processes charged as the system under test (direct: the upstream). */
  readonly sut: readonly number[]
}

/**
 * Open-loop requests at a fixed moderate rate, alternating direct, through the Koa floor (the
 * same relay as Koa middleware, no logic) and through the gateway (warm service-account token);
 * what each adds is the difference of its medians over rounds to direct's. The Koa floor shows
 * how much of the gateway's added latency a Koa relay adds by itself at the same rate.
 */
export async function runLatency(world: World, options: LatencyOptions): Promise<LatencyResult> {
  const gateway = world.systems.get('gw-main')
  const token = world.credentials.get('sa-main')
  if (gateway === undefined || token === undefined) throw new Error('gateway main is not running')
  const koaFloor = world.systems.get('koa-floor')
  if (koaFloor === undefined) {
    const reason = world.unavailable.get('koa-floor') ?? 'not started'
    options.log(`! latency: koa-floor ${reason}; measuring direct and gateway only`)
  }
  const targets: LatencyTarget[] = [
    {
      path: 'direct',
      name: 'direct',
      system: 'upstream',
      url: `${world.upstream.baseUrl}${AUTH_PATH}`,
      headers: {},
      sut: world.upstream.pids,
    },
    ...(koaFloor === undefined
      ? []
      : [
          {
            path: 'koaFloor' as const,
            name: 'koa-floor',
            system: 'koa-floor' as const,
            url: `${koaFloor.baseUrl}${AUTH_PATH}`,
            headers: {},
            sut: koaFloor.pids,
          },
        ]),
    {
      path: 'gateway',
      name: 'gateway',
      system: 'gw-main',
      url: `${gateway.baseUrl}${AUTH_PATH}`,
      headers: token.headers,
      sut: gateway.pids,
    },
  ]
  const rounds: Record<keyof LatencyRounds, LatencyPath[]> = {
    direct: [],
    koaFloor: [],
    gateway: [],
  }
  const foreign: number[] = []
  for (let round = 1; round <= options.rounds; round++) {
    for (const target of targets) {
      const measured = await whilePaused(otherSystemPids(world, target.system), () =>
        measure(
          {
            sut: target.sut,
            upstream: target.path === 'direct' ? [] : world.upstream.pids,
            outside: [],
          },
          () =>
            runFixedRate(
              {
                url: target.url,
                rate: options.rate,
                durationS: options.durationS,
                warmupS: 1,
                connections: LATENCY_CONNECTIONS,
                headers: target.headers,
                expectStatus: 200,
              },
              world.pinning.generator,
            ),
        ),
      )
      const load = measured.load
      if (load.unexpected > 0 || load.errors > 0) {
        options.log(
          `! latency ${target.name}: ${load.unexpected} unexpected, ${load.errors} errors`,
        )
      }
      rounds[target.path].push({ p50Us: load.p50Us, p99Us: load.p99Us, requests: load.requests })
      foreign.push(measured.disturbance.foreignCores)
      options.log(
        `latency round ${round} ${target.name.padEnd(9)} @${options.rate}/s  p50 ${ms(load.p50Us)} ms  p99 ${ms(load.p99Us)} ms`,
      )
    }
  }
  const result = summarizeLatency(options.rate, rounds, foreign)
  const floor = koaFloorOf(result)
  const floorAdded =
    floor === null
      ? ''
      : `Koa floor p50 ${ms(floor.addedP50Us)} ms  p99 ${ms(floor.addedP99Us)} ms; `
  options.log(
    `latency added to direct @${options.rate}/s: ${floorAdded}gateway p50 ${ms(result.addedP50Us)} ms  p99 ${ms(result.addedP99Us)} ms`,
  )
  return result
}
