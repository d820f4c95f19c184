import { Pool } from 'undici'
import { stop } from '../lib/cleanup.js'
import { httpRequest } from '../lib/net.js'
import { peakRssBytes, rssBytes } from '../lib/proc.js'
import { metricValue } from '../lib/proc-parse.js'
import type { MemoryResult } from '../lib/types.js'
import { startGateway } from '../systems/gateway.js'
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

const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * RSS of a fresh gateway after `accounts` distinct service-account tokens were each verified once
 * (so all are cached): accounts inserted directly into the store first, with hashes from the
 * gateway's own token functions.
 */
export async function runMemory(
  world: World,
  kind: StoreTarget['kind'],
  accounts: number,
  log: (line: string) => void,
): Promise<MemoryResult> {
  let store: StoreTarget
  if (kind === 'postgres') {
    if (world.postgres === null) throw new Error('PostgreSQL is not running')
    store = { kind, url: await world.postgres.createDatabase() }
  } else {
    store = { kind, dataDir: `${world.dir}/store-memory` }
  }
  log(`memory (${kind}): inserting ${accounts} service accounts…`)
  const seeded = await prepareStore(store, accounts, 'bench-memory')
  const gateway = await startGateway(
    {
      name: `memory-${kind}`,
      upstreamUrl: world.upstream.baseUrl,
      auth: { kind: 'security_key', key: world.securityKey },
      store,
      cacheTtlSeconds: 3_600,
      cacheMaxEntries: Math.max(100_000, accounts),
      accessLog: true,
    },
    world.dir,
    world.pinning.sut,
  )
  const pid = gateway.pids[0] ?? -1
  try {
    await settle(2_000)
    const before = rssBytes(pid)
    log(`memory (${kind}): RSS ${(before / MB).toFixed(1)} MB; verifying each token once…`)
    const started = performance.now()
    const failures = await requestEach(
      gateway.baseUrl,
      seeded.map((account) => account.token),
    )
    const warmSeconds = (performance.now() - started) / 1000
    await settle(3_000)
    const after = rssBytes(pid)
    const metrics = await httpRequest(`${gateway.adminUrl}/metrics`).catch(() => ({ body: '' }))
    const heapUsed = metricValue(metrics.body, 'portcullis_nodejs_heap_size_used_bytes')
    const external = metricValue(metrics.body, 'portcullis_nodejs_external_memory_bytes')
    log(
      `memory (${kind}): ${accounts} tokens in ${warmSeconds.toFixed(1)} s, ${failures} failures; RSS ${(after / MB).toFixed(1)} MB, heap used ${(heapUsed / MB).toFixed(1)} MB`,
    )
    return {
      store: kind,
      accounts,
      rssBeforeMb: before / MB,
      rssAfterMb: after / MB,
      peakMb: peakRssBytes(pid) / MB,
      heapUsedMb: heapUsed / MB,
      externalMb: external / MB,
      warmSeconds,
      failures,
    }
  } finally {
    await stop(gateway.child)
  }
}
