/**
 * The instructions phase: user-space instructions a request of the Koa floor and of the gateway
 * (excluded route, warm service-account token), of a 401 each answers itself and of the
 * gateway's 429 to a throttled address, counted by valgrind's callgrind. A count is a reading the
 * host's other work hardly moves, unlike CPU time (a target's rounds read 0.9 to 1.8 times the
 * floor on a shared machine); it is what the CPU targets 1, 2 and 5 would read on an idle machine
 * without caches, and says nothing of memory stalls.
 */
import { Pool } from 'undici'
import { callgrindWrapper, countWindow } from '../lib/callgrind.js'
import type { InstructionResult } from '../lib/types.js'
import { countingUpstream } from './allocation.js'
import { THROUGHPUT_SCENARIOS, type ThroughputScenario } from './catalog.js'
import { startSubject, type Subject } from './subject.js'
import { reach } from './throughput.js'
import type { World } from './world.js'

/** The throughput scenarios counted, in this order (the Koa floor first: the ratios' base). */
export const INSTRUCTION_SCENARIOS = [
  'koa-floor',
  'pc-excluded',
  'pc-sa-warm',
  'koa-floor-401-set',
  'pc-401',
  'pc-429',
] as const
/** Requests before counting: every path compiled by V8's optimizing tier and settled. */
export const INSTRUCTION_WARMUP = 20_000
/** Requests a counted window; the lowest of INSTRUCTION_WINDOWS windows is the figure. */
export const INSTRUCTION_WINDOW = 2_000
export const INSTRUCTION_WINDOWS = 5
/** Requests in flight at once: enough to keep the process busy, few enough to stay in order. */
export const INSTRUCTION_CONCURRENCY = 4
/** Under valgrind, node starts in tens of seconds. */
const READY_TIMEOUT_MS = 300_000
/** Long enough that no cached token expires during the phase (a lookup would count the store). */
const CACHE_TTL_S = 3_600

export interface InstructionOptions {
  readonly accessLog: boolean
  /** `--quick`: a smoke check of the phase (QUICK's sizes), not a figure to compare. */
  readonly quick?: boolean
  readonly log: (line: string) => void
}

const FULL = {
  warmup: INSTRUCTION_WARMUP,
  window: INSTRUCTION_WINDOW,
  windows: INSTRUCTION_WINDOWS,
}
const QUICK = { warmup: 2_000, window: 500, windows: 2 }

/**
 * Sends `count` requests, INSTRUCTION_CONCURRENCY at a time; each must be answered with the
 * scenario's status.
 */
async function send(
  pool: Pool,
  scenario: ThroughputScenario,
  headers: Subject['headers'],
  count: number,
) {
  const { path, expectStatus } = scenario
  let sent = 0
  const worker = async () => {
    while (sent < count) {
      sent += 1
      const response = await pool.request({ method: 'GET', path, headers })
      await response.body.dump()
      if (response.statusCode !== expectStatus) {
        throw new Error(`${path} answered ${response.statusCode}, not ${expectStatus}`)
      }
    }
  }
  await Promise.all(Array.from({ length: INSTRUCTION_CONCURRENCY }, worker))
}

/**
 * One scenario's system in a new process under callgrind (counting off), in front of an upstream
 * in the harness: INSTRUCTION_WARMUP requests, then INSTRUCTION_WINDOWS windows of
 * INSTRUCTION_WINDOW requests each counted on its own. A window in which a major collection or a
 * compilation ran counts more; the lowest is what a request itself costs.
 */
export async function measureInstructions(
  world: World,
  scenarioId: string,
  options: InstructionOptions,
): Promise<InstructionResult> {
  const scenario = THROUGHPUT_SCENARIOS.find((s) => s.id === scenarioId)
  if (scenario === undefined) throw new Error(`unknown scenario ${scenarioId}`)
  const upstream = await countingUpstream()
  const name = `instructions-${scenario.id}`
  let subject: Subject | undefined
  let pool: Pool | undefined
  try {
    subject = await startSubject(world, scenario.id, upstream.baseUrl, {
      phase: 'instructions',
      accessLog: options.accessLog,
      cacheTtlSeconds: CACHE_TTL_S,
      // One thread: V8's compiler and collector threads would be counted with the requests.
      nodeArgs: ['--single-threaded'],
      wrapper: callgrindWrapper(world.dir, name),
      readyTimeoutMs: READY_TIMEOUT_MS,
    })
    const pid = subject.system.pids[0]
    if (pid === undefined) throw new Error(`${name} has no pid`)
    pool = new Pool(subject.system.baseUrl, { connections: INSTRUCTION_CONCURRENCY })
    const { headers } = subject
    const sizes = options.quick === true ? QUICK : FULL
    // The 429 scenario's address is throttled only once its failures (401s) fill the window.
    await reach(
      `${subject.system.baseUrl}${scenario.path}`,
      { headers },
      undefined,
      scenario.expectStatus,
    )
    await send(pool, scenario, headers, sizes.warmup)
    const windows: number[] = []
    for (let index = 0; index < sizes.windows; index++) {
      const counted = await countWindow(world.dir, name, pid, () =>
        send(pool as Pool, scenario, headers, sizes.window),
      )
      windows.push(Math.round(counted / sizes.window))
    }
    const perRequest = Math.min(...windows)
    options.log(
      `instructions (${scenario.id}): ${perRequest} a request (windows ${windows.join(', ')})`,
    )
    return {
      scenario: scenario.id,
      label: scenario.label,
      path: scenario.path,
      warmup: sizes.warmup,
      windowRequests: sizes.window,
      windows,
      perRequest,
    }
  } finally {
    await pool?.close()
    await subject?.system.stop()
    await upstream.close()
  }
}
