/**
 * The allocation phase: bytes allocated per request by the Koa floor and by the gateway (excluded
 * route, warm service-account token), from V8's sampling heap profiler under load. Allocated bytes
 * are a reading a shared machine's other work cannot disturb, unlike CPU time.
 */
import type { AddressInfo } from 'node:net'
import { stop } from '../lib/cleanup.js'
import { perRequest, sitesPerRequest, summarizeHeapProfile } from '../lib/heap-profile.js'
import { openInspector, type InspectorSession } from '../lib/inspector.js'
import { freePort } from '../lib/net.js'
import type { AllocationResult } from '../lib/types.js'
import { autocannonGenerator } from '../load/autocannon.js'
import type { RunningLoad } from '../load/generator.js'
import { upstreamServer } from '../upstream/answer.js'
import { THROUGHPUT_SCENARIOS } from './catalog.js'
import { startSubject, type Subject } from './subject.js'
import type { World } from './world.js'

/** Load before the profiler starts (from the first answer), then load while it samples. */
export const ALLOCATION_WARMUP_S = 8
export const ALLOCATION_SAMPLE_S = 8
/** Bytes between samples, on average (V8's default is 32 KiB). */
export const SAMPLING_INTERVAL = 256
/** Allocation sites kept per system. */
export const TOP_SITES = 15
/** The throughput scenarios measured, in this order (the Koa floor first: the ratios' base). */
export const ALLOCATION_SCENARIOS = ['koa-floor', 'pc-excluded', 'pc-sa-warm'] as const

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

export interface AllocationOptions {
  readonly connections: number
  readonly accessLog: boolean
  readonly log: (line: string) => void
}

/** An upstream in the harness's process that counts its answers. */
export async function countingUpstream() {
  let answered = 0
  const server = upstreamServer(() => (answered += 1))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    answered: () => answered,
    close: () => {
      server.closeAllConnections()
      return new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

/**
 * One scenario's system in a new process: load from autocannon (always, whichever generator the
 * throughput rounds use, so that every run sends the same requests), ALLOCATION_WARMUP_S of it,
 * then V8's sampling heap profiler for ALLOCATION_SAMPLE_S under the same load; the bytes it
 * sampled (every node's selfSize, objects collected since included) over the requests the
 * upstream answered meanwhile.
 */
export async function measureAllocation(
  world: World,
  scenarioId: string,
  options: AllocationOptions,
): Promise<AllocationResult> {
  const scenario = THROUGHPUT_SCENARIOS.find((s) => s.id === scenarioId)
  if (scenario === undefined) throw new Error(`unknown scenario ${scenarioId}`)
  const upstream = await countingUpstream()
  let subject: Subject | undefined
  let inspector: InspectorSession | undefined
  let load: RunningLoad | undefined
  try {
    const inspectPort = await freePort()
    subject = await startSubject(world, scenario.id, upstream.baseUrl, {
      phase: 'allocation',
      accessLog: options.accessLog,
      nodeArgs: [`--inspect-port=127.0.0.1:${inspectPort}`],
    })
    // Opened before the load, so that whatever attaching costs is over by the end of the warm-up.
    inspector = await openInspector(subject.system.pids[0] ?? -1, inspectPort)
    load = autocannonGenerator(world.pinning.generator).run({
      url: `${subject.system.baseUrl}${scenario.path}`,
      connections: options.connections,
      // The generator's own start, the warm-up and the sampling, with room to spare.
      durationS: ALLOCATION_WARMUP_S + ALLOCATION_SAMPLE_S + 5,
      headers: subject.headers,
    })
    load.result.catch(() => undefined)
    const before = upstream.answered()
    for (let waited = 0; upstream.answered() === before; waited += 50) {
      if (waited > 10_000) throw new Error('the load generator sent nothing for 10 s')
      await sleep(50)
    }
    await sleep(ALLOCATION_WARMUP_S * 1000)
    // The answers counted and the time, as sampling starts and as it is asked to stop: not once
    // it answered, since the profile takes most of a second to arrive, while the system goes on
    // answering requests that were not sampled (counting those made the floor's figure 7 % low).
    const marks: { answered: number; at: number; loaded: boolean }[] = []
    const running = load.child
    const profile = await inspector.sampleAllocations(
      ALLOCATION_SAMPLE_S * 1000,
      SAMPLING_INTERVAL,
      () =>
        marks.push({
          answered: upstream.answered(),
          at: performance.now(),
          loaded: running.exitCode === null,
        }),
    )
    const [first, last] = marks
    if (first === undefined || last === undefined || !last.loaded)
      throw new Error('the load ended before the sampling did')
    const requests = last.answered - first.answered
    const sampledS = (last.at - first.at) / 1000
    const summary = summarizeHeapProfile(profile, TOP_SITES)
    const bytesPerRequest = perRequest(summary.totalBytes, requests)
    const result = await load.result
    const failures = result.unexpected + result.errors
    options.log(
      `allocation (${scenario.id}): ${(bytesPerRequest / 1024).toFixed(2)} KB/request sampled over ${requests} requests in ${sampledS.toFixed(1)} s; ${failures} failures`,
    )
    return {
      scenario: scenario.id,
      label: scenario.label,
      path: scenario.path,
      requests,
      sampledS,
      bytesPerRequest,
      topSites: sitesPerRequest(summary, requests),
      failures,
    }
  } finally {
    inspector?.close()
    if (load !== undefined) await stop(load.child)
    await subject?.system.stop()
    await upstream.close()
  }
}
