/**
 * One throughput scenario's system alone, in a new process of its own, for the phases that look
 * inside a process (allocation, instructions): the Koa floor, or a gateway configured as the
 * throughput scenarios' main gateway (bench/scenarios/world-gateways.ts).
 */
import { startGateway } from '../systems/gateway.js'
import { prepareStore } from '../systems/store.js'
import type { RunningSystem } from '../systems/system.js'
import { startKoaProxy, type NodeServerOptions } from '../systems/upstream.js'
import { THROUGHPUT_SCENARIOS } from './catalog.js'
import type { World } from './world.js'

export interface Subject {
  readonly system: RunningSystem
  /** What each request sends: a warm service-account token for `pc-sa-warm`. */
  readonly headers: Readonly<Record<string, string>>
}

/** How the process is started: as any bench server (node's options, a wrapper, how long to wait). */
export interface SubjectOptions extends Pick<
  NodeServerOptions,
  'nodeArgs' | 'wrapper' | 'readyTimeoutMs'
> {
  /** Names the process's files (log, config, store). */
  readonly phase: string
  readonly accessLog: boolean
  /** The gateway's service-account cache TTL (the throughput gateways': 30 s). */
  readonly cacheTtlSeconds?: number
}

/**
 * The system of `scenario` in front of `upstreamUrl`: the Koa floor for the rows the catalogue
 * runs on it (koa-floor, koa-floor-401-set), the main gateway's configuration for the others
 * (pc-excluded, pc-sa-warm, pc-401, pc-429).
 */
export async function startSubject(
  world: World,
  scenario: string,
  upstreamUrl: string,
  options: SubjectOptions,
): Promise<Subject> {
  const { nodeArgs = [], wrapper, readyTimeoutMs } = options
  const started = {
    nodeArgs,
    ...(wrapper && { wrapper }),
    ...(readyTimeoutMs && { readyTimeoutMs }),
  }
  const entry = THROUGHPUT_SCENARIOS.find((s) => s.id === scenario)
  if (entry === undefined) throw new Error(`unknown scenario ${scenario}`)
  if (entry.system === 'koa-floor') {
    const system = await startKoaProxy(world.dir, upstreamUrl, world.pinning.sut, started)
    return { system, headers: {} }
  }
  const name = `${options.phase}-${scenario}`
  const store = { kind: 'embedded', dataDir: `${world.dir}/store-${name}` } as const
  const [account] = await prepareStore(store, 1, `bench-${name}`)
  const system = await startGateway(
    {
      name,
      upstreamUrl,
      auth: { kind: 'security_key', key: world.securityKey },
      store,
      cacheTtlSeconds: options.cacheTtlSeconds ?? 30,
      cacheMaxEntries: 100_000,
      accessLog: options.accessLog,
      ...started,
    },
    world.dir,
    world.pinning.sut,
  )
  // The main gateway's account is this process's own; other credentials are the run's.
  const headers =
    entry.credential === 'sa-main'
      ? { authorization: `Bearer ${account?.token ?? ''}` }
      : (world.credentials.get(entry.credential)?.headers ?? {})
  return { system, headers }
}
