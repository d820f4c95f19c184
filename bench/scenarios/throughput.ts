import { readFileSync } from 'node:fs'
import type { LoadGenerator } from '../load/generator.js'
import { measure, type Accounting, type Measured } from '../lib/measure.js'
import { httpRequest } from '../lib/net.js'
import { repin } from '../lib/pin.js'
import { combineSlices, sliceCount } from '../lib/slices.js'
import { whilePaused } from '../lib/pause.js'
import { measureWithLittleSteal } from '../lib/steal.js'
import type { HostGate } from '../lib/host-gate.js'
import type { HostSpeedReading, Sample, SkippedScenario } from '../lib/types.js'
import { truncateLog } from '../systems/system.js'
import type { ThroughputScenario } from './catalog.js'
import {
  otherSystemPids,
  postgresPids,
  restartSystem,
  type CredentialSpec,
  type World,
} from './world.js'

export interface ThroughputOptions {
  readonly rounds: number
  readonly durationS: number
  /** Length of a slice of a measurement (see runThroughput). */
  readonly sliceS: number
  readonly warmupS: number
  /** Start every system under test again (a new process) before each round after the first. */
  readonly restart: boolean
  /** A measurement during which steal exceeded this many cores is taken again (see lib/steal.ts). */
  readonly maxStealCores: number
  readonly connections: number
  /** Lets each pass over the scenarios through only while the machine runs at its speed. */
  readonly gate?: HostGate
  readonly log: (line: string) => void
}

/** Requests a scenario may take to reach its status: a throttle trips after 20 failures (default). */
const MAX_REACH_REQUESTS = 100

/**
 * Requests with the scenario's credential until one answers the scenario's status (the 429
 * scenario's throttle needs failures first); a scenario that never does is skipped.
 */
export async function reach(
  url: string,
  credential: CredentialSpec,
  firstToken: string | undefined,
  expectStatus: number,
): Promise<void> {
  const headers = { ...credential.headers }
  if (firstToken !== undefined) headers.authorization = `Bearer ${firstToken}`
  let last = { status: 0, body: '' }
  for (let n = 0; n < MAX_REACH_REQUESTS && last.status !== expectStatus; n++) {
    last = await httpRequest(url, { headers })
  }
  if (last.status !== expectStatus) {
    throw new Error(`answered ${last.status}, not ${expectStatus}: ${last.body.slice(0, 200)}`)
  }
}

/**
 * One slice of one scenario: `durationS` of load, after `warmupS` of warm-up when asked. Null when
 * the scenario's system or credential is gone.
 */
async function measureSlice(
  world: World,
  scenario: ThroughputScenario,
  generator: LoadGenerator,
  offsets: Map<string, number>,
  slice: {
    durationS: number
    warmupS: number
    connections: number
    gatewayLogs: string[]
    maxStealCores: number
    log: (line: string) => void
  },
): Promise<Measured | null> {
  const system = world.systems.get(scenario.system)
  const credential = world.credentials.get(scenario.credential)
  if (system === undefined || credential === undefined) return null
  const direct = scenario.system === 'upstream'
  const answersItself = scenario.expectStatus !== 200
  const url = `${system.baseUrl}${scenario.path}`
  const accounting: Accounting = {
    sut: system.pids,
    upstream: direct ? [] : world.upstream.pids,
    outside: postgresPids(world.postgres),
  }
  const run = async (durationS: number) => {
    const file = credential.tokensFile
    const offset = file === undefined ? 0 : (offsets.get(file) ?? 0)
    const measured = await measure(accounting, () =>
      generator.run({
        url,
        connections: slice.connections,
        durationS,
        headers: credential.headers,
        tokensFile: file,
        tokenOffset: offset,
        expectStatus: answersItself ? scenario.expectStatus : undefined,
      }),
    )
    // Continue the token cycle where this run stopped (in-flight requests included).
    if (file !== undefined) offsets.set(file, offset + measured.load.requests + slice.connections)
    return measured
  }
  if (scenario.accessLog !== undefined) {
    await world.gateways.get(scenario.system)?.setAccessLog(scenario.accessLog)
  }
  if (direct) repin(world.pinning, world.upstream.pids[0] ?? -1, world.pinning.sut)
  try {
    return await whilePaused(otherSystemPids(world, scenario.system), async () => {
      // A throttle's window may have drained since the last slice: trip it again first.
      if (answersItself) await reach(url, credential, undefined, scenario.expectStatus)
      if (slice.warmupS > 0) await run(slice.warmupS)
      return measureWithLittleSteal(
        async () => {
          for (const file of slice.gatewayLogs) truncateLog(file)
          return run(slice.durationS)
        },
        slice.maxStealCores,
        slice.log,
      )
    })
  } finally {
    if (direct) repin(world.pinning, world.upstream.pids[0] ?? -1, world.pinning.generator)
    for (const file of slice.gatewayLogs) truncateLog(file)
  }
}

/**
 * Every available scenario, round after round, alternating (round 1 of each, then round 2 …), so
 * a slow drift of the machine affects every scenario alike. With `sliceS` (`--slice`), a round's
 * measurement of each scenario is cut into slices of about that long, taken in turn over the
 * scenarios (slice 1 of each, then slice 2 …) and added up; each slice starts the load generator
 * and its connections anew. With `restart` (the default), every system under test but the upstream
 * is started again before each round after the first, and each scenario is warmed up in every
 * round; otherwise each scenario is warmed up once.
 */
export async function runThroughput(
  world: World,
  scenarios: readonly ThroughputScenario[],
  generator: LoadGenerator,
  options: ThroughputOptions,
): Promise<{ samples: Sample[]; skipped: SkippedScenario[]; hostSpeed: HostSpeedReading[] }> {
  const samples: Sample[] = []
  const skipped: SkippedScenario[] = []
  const hostSpeed: HostSpeedReading[] = []
  const offsets = new Map<string, number>()
  const ready: ThroughputScenario[] = []
  for (const scenario of scenarios) {
    const system = world.systems.get(scenario.system)
    const credential = world.credentials.get(scenario.credential)
    if (system === undefined || credential === undefined) {
      const reason = world.unavailable.get(scenario.system) ?? `${scenario.system} not started`
      skipped.push({ scenario: scenario.id, reason })
      continue
    }
    let first: string | undefined
    if (credential.tokensFile !== undefined) {
      first = readFileSync(credential.tokensFile, 'utf8').split('\n')[0]
      offsets.set(credential.tokensFile, 1)
    }
    try {
      await reach(`${system.baseUrl}${scenario.path}`, credential, first, scenario.expectStatus)
      ready.push(scenario)
    } catch (error) {
      skipped.push({ scenario: scenario.id, reason: `sanity request ${String(error)}` })
    }
  }

  const gatewayLogs = [...world.gateways.values()].map((gateway) => gateway.logFile)
  const slices = sliceCount(options.durationS, options.sliceS)
  const restarted = [...new Set(ready.map((scenario) => scenario.system))].filter(
    (key) => key !== 'upstream',
  )
  for (let round = 1; round <= options.rounds; round++) {
    if (round > 1 && options.restart && restarted.length > 0) {
      options.log(`round ${round}: starting ${restarted.length} systems again`)
      for (const key of restarted) await restartSystem(world, key, options.log)
    }
    const warm = round === 1 || options.restart
    const measuredSlices = new Map<string, Measured[]>()
    for (let slice = 1; slice <= slices; slice++) {
      const name = slices > 1 ? `round ${round} slice ${slice}/${slices}` : `round ${round}`
      if (slices > 1) options.log(name)
      const measurePass = async () => {
        const measured = new Map<string, Measured>()
        for (const scenario of ready) {
          const one = await measureSlice(world, scenario, generator, offsets, {
            durationS: options.durationS / slices,
            warmupS: warm && slice === 1 ? options.warmupS : 0,
            connections: options.connections,
            gatewayLogs,
            maxStealCores: options.maxStealCores,
            log: options.log,
          })
          if (one !== null) measured.set(scenario.id, one)
        }
        return measured
      }
      let measured: Map<string, Measured>
      if (options.gate === undefined) measured = await measurePass()
      else {
        const pass = await options.gate.pass(name, measurePass)
        measured = pass.result
        hostSpeed.push({
          round,
          slice,
          cpuUsPerVerify: pass.before,
          afterUsPerVerify: pass.after,
          attempts: pass.attempts,
        })
      }
      for (const [id, one] of measured)
        measuredSlices.set(id, [...(measuredSlices.get(id) ?? []), one])
    }
    for (const scenario of ready) {
      const parts = measuredSlices.get(scenario.id)
      if (parts === undefined) continue
      const measured = combineSlices(parts)
      const rps = measured.load.requests / measured.load.durationS
      const cpuUsPerRequest = (measured.cpu.sutS * 1e6) / Math.max(1, measured.load.requests)
      samples.push({ scenario: scenario.id, round, ...measured, rps, cpuUsPerRequest })
      options.log(
        `round ${round} ${scenario.id.padEnd(18)} ${Math.round(rps).toString().padStart(6)} req/s` +
          `  p50 ${(measured.load.p50Us / 1000).toFixed(2)} ms  p99 ${(measured.load.p99Us / 1000).toFixed(2)} ms` +
          `  cpu ${cpuUsPerRequest.toFixed(1)} µs/req  others ${measured.disturbance.foreignCores.toFixed(2)} cores` +
          (measured.load.statuses === undefined
            ? ''
            : `  answers ${JSON.stringify(measured.load.statuses)}`) +
          (measured.load.unexpected > 0
            ? `  ! ${measured.load.unexpected} not ${scenario.expectStatus}`
            : ''),
      )
    }
  }
  return { samples, skipped, hostSpeed }
}
