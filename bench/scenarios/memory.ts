import { readFileSync } from 'node:fs'
import { Pool } from 'undici'
import { stop } from '../lib/cleanup.js'
import { openInspector, type InspectorSession } from '../lib/inspector.js'
import { freePort, httpRequest } from '../lib/net.js'
import { peakRssBytes, processTree, rssBytes } from '../lib/proc.js'
import { metricValue } from '../lib/proc-parse.js'
import { describeSettle, waitUntilSettled, type Settled } from '../lib/settle.js'
import type { FirstStartMemory, MemoryResult } from '../lib/types.js'
import { startGateway, type RunningGateway } from '../systems/gateway.js'
import { prepareStore, type StoreTarget } from '../systems/store.js'
import { AUTH_PATH } from './catalog.js'
import type { World } from './world.js'

const MB = 1024 * 1024

/** Sends each token once through `concurrency` keep-alive connections; returns the failures. */
export async function requestEach(
  baseUrl: string,
  tokens: readonly string[],
  concurrency = 50,
): Promise<number> {
  const pool = new Pool(baseUrl, { connections: concurrency })
  let next = 0
  let failures = 0
  const worker = async () => {
    while (next < tokens.length) {
      const token = tokens[next++] as string
      try {
        const res = await pool.request({
          method: 'GET',
          path: AUTH_PATH,
          headers: { authorization: `Bearer ${token}` },
        })
        await res.body.dump()
        if (res.statusCode !== 200) failures += 1
      } catch {
        failures += 1
      }
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
  await pool.close()
  return failures
}

/**
 * Accounts verified before the heap is first read (at most a tenth of them): the code V8 compiles
 * for the verification path, several MB once, would otherwise be spread over the accounts.
 */
export const WARM_ACCOUNTS = 1_000

/**
 * Leaves a gateway alone until its memory has settled (bench/lib/settle.ts: at least 25 s, then
 * until its RSS has not dropped by more than 1 % over the last 16 s; at most 90 s): V8 keeps the
 * garbage of a start or of the warm-up until its memory reducer runs, 8 to 16 s after the last full
 * collection of an idle process. Only /proc is read while waiting: a scrape of the gateway's
 * /metrics allocates about 0.4 MB of its heap, enough to keep an idle process from being idle.
 * Nothing is collected on purpose. Returns the last reading.
 */
async function settle(pid: number): Promise<Settled> {
  return waitUntilSettled(async () => ({ rssBytes: rssBytes(pid) }))
}

/** The highest sum of the RSS of a process and its descendants, sampled every 10 ms. */
function treePeakSampler(): { watch(pid: number): void; stop(): number } {
  let root: number | undefined
  let peak = 0
  const timer = setInterval(() => {
    if (root === undefined) return
    let sum = 0
    for (const pid of processTree(root)) sum += rssBytes(pid) || 0
    peak = Math.max(peak, sum)
  }, 10)
  return {
    watch: (pid) => (root = pid),
    stop: () => {
      clearInterval(timer)
      return peak
    },
  }
}

interface Started {
  readonly gateway: RunningGateway
  readonly pid: number
  readonly inspectPort: number
}

async function start(
  world: World,
  name: string,
  store: StoreTarget,
  accounts: number,
  onSpawn?: (pid: number) => void,
): Promise<Started> {
  const inspectPort = await freePort()
  const gateway = await startGateway(
    {
      name,
      upstreamUrl: world.upstream.baseUrl,
      auth: { kind: 'security_key', key: world.securityKey },
      store,
      cacheTtlSeconds: 3_600,
      cacheMaxEntries: Math.max(100_000, accounts),
      accessLog: true,
      // Nothing listens there until the harness asks (SIGUSR1), after RSS after start is read.
      nodeArgs: [`--inspect-port=127.0.0.1:${inspectPort}`],
      onSpawn,
    },
    world.dir,
    world.pinning.sut,
  )
  return { gateway, pid: gateway.pids[0] ?? -1, inspectPort }
}

/**
 * The embedded store's first start on an empty data directory: the gateway's peak together with
 * the child that initialises the directory, read three ways (sampled every 10 ms, the gateway's
 * VmHWM, and the gateway's RSS when it forked the child plus the child's own peak, as the gateway
 * logs them), the largest counting; then its RSS once settled.
 */
async function firstStart(world: World, dataDir: string, log: (line: string) => void) {
  const sampler = treePeakSampler()
  const { gateway, pid } = await start(
    world,
    'memory-embedded-first',
    { kind: 'embedded', dataDir },
    0,
    (spawned) => sampler.watch(spawned),
  )
  try {
    const settled = await settle(pid)
    const rss = settled.sample.rssBytes
    const gatewayPeak = peakRssBytes(pid)
    const sampled = sampler.stop()
    const initialised = readFileSync(gateway.logFile, 'utf8')
      .split('\n')
      .filter((line) => line.includes('embedded store initialised'))
      .map((line) => JSON.parse(line) as { peak_rss_bytes?: number; gateway_rss_bytes?: number })
      .at(0)
    const childPeak = initialised?.peak_rss_bytes ?? 0
    const together = (initialised?.gateway_rss_bytes ?? 0) + childPeak
    const result: FirstStartMemory = {
      peakMb: Math.max(sampled, gatewayPeak, together) / MB,
      gatewayPeakMb: gatewayPeak / MB,
      childPeakMb: childPeak / MB,
      rssMb: rss / MB,
      rssWaitS: settled.waitedS,
    }
    log(
      `memory (embedded): first start peak ${result.peakMb.toFixed(1)} MB (gateway ${result.gatewayPeakMb.toFixed(1)}, initialising child ${result.childPeakMb.toFixed(1)}), RSS after it ${result.rssMb.toFixed(1)} MB (${describeSettle(settled)})`,
    )
    return result
  } finally {
    sampler.stop()
    await stop(gateway.child)
  }
}

async function heapAfterGc(inspector: InspectorSession): Promise<number> {
  return (await inspector.heapAfterGc()).heapUsed
}

/**
 * RSS of a gateway after its start has settled, then after `accounts` distinct service-account
 * tokens were each verified once (so all are cached; accounts inserted directly into the store
 * first, with hashes from the gateway's own token functions), and the growth of its V8 heap per
 * cached account, after full collections (through the inspector, opened once the RSS after start
 * is read), from after the first WARM_ACCOUNTS to after the last. The embedded store's first start is measured before, on an empty
 * directory.
 */
export async function runMemory(
  world: World,
  kind: StoreTarget['kind'],
  accounts: number,
  log: (line: string) => void,
): Promise<MemoryResult> {
  let store: StoreTarget
  let first: FirstStartMemory | null = null
  if (kind === 'postgres') {
    if (world.postgres === null) throw new Error('PostgreSQL is not running')
    store = { kind, url: await world.postgres.createDatabase() }
  } else {
    store = { kind, dataDir: `${world.dir}/store-memory` }
    first = await firstStart(world, store.dataDir, log)
  }
  log(`memory (${kind}): inserting ${accounts} service accounts…`)
  const seeded = await prepareStore(store, accounts, 'bench-memory')
  const { gateway, pid, inspectPort } = await start(world, `memory-${kind}`, store, accounts)
  let inspector: InspectorSession | undefined
  try {
    const startSettled = await settle(pid)
    const before = startSettled.sample.rssBytes
    const startPeak = peakRssBytes(pid)
    inspector = await openInspector(pid, inspectPort)
    log(
      `memory (${kind}): RSS ${(before / MB).toFixed(1)} MB after start (${describeSettle(startSettled)}; peak ${(startPeak / MB).toFixed(1)} MB); verifying each token once…`,
    )
    const tokens = seeded.map((account) => account.token)
    const warmAccounts = Math.min(WARM_ACCOUNTS, Math.floor(tokens.length / 10))
    const started = performance.now()
    // The first accounts make V8 compile the verification path; the heap is read after them, so
    // that the growth divided by the other accounts is what each costs, not the compiled code.
    let failures = await requestEach(gateway.baseUrl, tokens.slice(0, warmAccounts))
    const heapBefore = await heapAfterGc(inspector)
    failures += await requestEach(gateway.baseUrl, tokens.slice(warmAccounts))
    const warmSeconds = (performance.now() - started) / 1000
    // Read once settled, as after start: the warm-up's garbage is not the cache's cost (the peak,
    // reported beside it, includes it).
    const afterSettled = await settle(pid)
    const after = afterSettled.sample.rssBytes
    const metrics = await httpRequest(`${gateway.adminUrl}/metrics`).catch(() => ({ body: '' }))
    const heapUsed = metricValue(metrics.body, 'portcullis_nodejs_heap_size_used_bytes')
    const external = metricValue(metrics.body, 'portcullis_nodejs_external_memory_bytes')
    const measured = accounts - warmAccounts
    const heapPerAccount =
      measured > 0 ? ((await heapAfterGc(inspector)) - heapBefore) / measured : null
    log(
      `memory (${kind}): ${accounts} tokens in ${warmSeconds.toFixed(1)} s, ${failures} failures; RSS ${(after / MB).toFixed(1)} MB (${describeSettle(afterSettled)}), heap used ${(heapUsed / MB).toFixed(1)} MB, ${heapPerAccount?.toFixed(0) ?? '—'} bytes of heap per cached account after GC`,
    )
    return {
      store: kind,
      accounts,
      rssBeforeMb: before / MB,
      rssBeforeWaitS: startSettled.waitedS,
      startPeakMb: startPeak / MB,
      rssAfterMb: after / MB,
      rssAfterWaitS: afterSettled.waitedS,
      peakMb: peakRssBytes(pid) / MB,
      heapUsedMb: heapUsed / MB,
      externalMb: external / MB,
      heapPerAccountBytes: heapPerAccount,
      firstStart: first,
      warmSeconds,
      failures,
    }
  } finally {
    inspector?.close()
    await stop(gateway.child)
  }
}
