import { closeSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { stringify } from 'yaml'
import { start } from '../lib/cleanup.js'
import type { JwtAlgorithm } from '../lib/jwt.js'
import { freePort, httpRequest, waitForHttp } from '../lib/net.js'
import type { StoreTarget } from './store.js'
import { isAlive, logFile, nodeCommand, runningSystem, tail, type RunningSystem } from './system.js'

export const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url))
let main = join(PROJECT_ROOT, 'dist', 'main.js')

/** Which build of the gateway every later start runs (see lib/build.ts). */
export function useGatewayBuild(path: string): void {
  main = path
}

/** Variables the gateway reads; removed so the harness's environment cannot leak in. */
const GATEWAY_ENV = [
  'PORTCULLIS_UPSTREAM_URL',
  'PORTCULLIS_PORT',
  'PORTCULLIS_ADMIN_PORT',
  'JWT_VERIFICATION_KEY',
  'JWT_JWKS_FILE',
  'OS_SECURITY_KEY',
  'PORTCULLIS_AUTH_OPEN',
  'SERVICE_ACCOUNT_CACHE_TTL_SECONDS',
  'DATABASE_URL',
  'PORTCULLIS_DATA_DIR',
]

export type GatewayAuth =
  | { readonly kind: 'security_key'; readonly key: string }
  | { readonly kind: 'jwt'; readonly alg: JwtAlgorithm; readonly verification: string }

export interface RunningGateway extends RunningSystem {
  readonly logFile: string
  readonly adminUrl: string
  /**
   * Sets `logging.access_log` by rewriting the config file and reloading it (SIGHUP); resolves
   * once the gateway counts the reload as applied. Nothing happens when it is already so.
   */
  setAccessLog(on: boolean): Promise<void>
}

const APPLIED_RELOADS = /^portcullis_config_reloads_total\{result="applied"\} (\d+(?:\.\d+)?)$/m

/** The reloads a gateway's `/metrics` counts as applied (0 before the first). */
export function appliedReloads(metrics: string): number {
  const match = APPLIED_RELOADS.exec(metrics)
  return match === null ? 0 : Number(match[1])
}

/** How long a reload may take to be applied before the run gives up on it. */
const RELOAD_TIMEOUT_MS = 30_000

export interface GatewaySetup {
  readonly name: string
  readonly upstreamUrl: string
  readonly auth: GatewayAuth
  readonly store: StoreTarget
  readonly cacheTtlSeconds: number
  readonly cacheMaxEntries: number
  readonly accessLog: boolean
  readonly cpuProfileDir?: string
  /** Extra options for node itself (before the script). */
  readonly nodeArgs?: readonly string[]
  /** Called with the gateway's pid as soon as it is spawned (before it is ready). */
  readonly onSpawn?: (pid: number) => void
  /** A command node runs under (`valgrind --tool=callgrind …`), in the same process. */
  readonly wrapper?: readonly string[]
  /** How long the gateway may take to answer /readyz (default 120 s; longer under a wrapper). */
  readonly readyTimeoutMs?: number
}

/** The YAML config of one gateway (documented keys only; see docs/configuration.md). */
export function gatewayConfig(
  setup: GatewaySetup,
  port: number,
  adminPort: number,
): Record<string, unknown> {
  const auth =
    setup.auth.kind === 'security_key'
      ? { security_key: setup.auth.key }
      : { algorithm: setup.auth.alg, verification_keys: [setup.auth.verification] }
  return {
    server: {
      host: '127.0.0.1',
      port,
      admin_host: '127.0.0.1',
      admin_port: adminPort,
      // Lets the flood scenario's generators pose as distinct clients with X-Forwarded-For.
      trusted_proxies: ['127.0.0.1/32'],
    },
    // The bench upstream answers every request with the same 100 bytes: it cannot tell the
    // gateway which AgentOS it is, so the line is pinned (its catalogue only maps routes).
    upstream: { url: setup.upstreamUrl, agentos_version: '2.9' },
    auth,
    service_accounts: {
      cache_ttl_seconds: setup.cacheTtlSeconds,
      cache_max_entries: setup.cacheMaxEntries,
      // Longer than a whole run: a throttled address stays throttled, so the 429 rows answer only
      // 429 (with the default 60 s, each window's end let a few attempts through as 401s).
      failed_lookup_window_seconds: 3_600,
    },
    database:
      setup.store.kind === 'embedded'
        ? { data_dir: setup.store.dataDir }
        : { url: setup.store.url },
    logging: { level: 'info', access_log: setup.accessLog },
  }
}

/** Starts `node dist/main.js serve` with a generated config; resolves once /readyz answers. */
export async function startGateway(
  setup: GatewaySetup,
  dir: string,
  cpus: string | null,
): Promise<RunningGateway> {
  const port = await freePort()
  const adminPort = await freePort()
  const configFile = join(dir, `${setup.name}.yaml`)
  writeFileSync(configFile, stringify(gatewayConfig(setup, port, adminPort)))
  const env: NodeJS.ProcessEnv = { ...process.env, NODE_ENV: 'production' }
  for (const name of GATEWAY_ENV) delete env[name]
  const profile =
    setup.cpuProfileDir === undefined
      ? []
      : [
          '--cpu-prof',
          '--cpu-prof-dir',
          setup.cpuProfileDir,
          '--cpu-prof-name',
          `${setup.name}.cpuprofile`,
        ]
  // Access log lines go to a file (as to a container log), written by the gateway itself.
  const out = logFile(join(dir, `${setup.name}.log`))
  const { command, args } = nodeCommand(setup.wrapper ?? [], [
    ...(setup.nodeArgs ?? []),
    ...profile,
    main,
    'serve',
    '--config',
    configFile,
  ])
  const child = start(command, args, {
    cpus,
    cwd: PROJECT_ROOT,
    env,
    stdio: ['ignore', out.fd, out.fd],
  })
  closeSync(out.fd)
  if (child.pid !== undefined) setup.onSpawn?.(child.pid)
  try {
    await waitForHttp(
      `http://127.0.0.1:${adminPort}/readyz`,
      `gateway ${setup.name}`,
      isAlive(child),
      setup.readyTimeoutMs ?? 120_000,
    )
  } catch (error) {
    throw new Error(`${String(error)}\n${tail(out.path)}`, { cause: error })
  }
  const adminUrl = `http://127.0.0.1:${adminPort}`
  let accessLog = setup.accessLog
  return {
    ...runningSystem(`portcullis-${setup.name}`, `http://127.0.0.1:${port}`, child),
    logFile: out.path,
    adminUrl,
    async setAccessLog(on) {
      if (on === accessLog) return
      const reloads = async () => appliedReloads((await httpRequest(`${adminUrl}/metrics`)).body)
      const before = await reloads()
      writeFileSync(
        configFile,
        stringify(gatewayConfig({ ...setup, accessLog: on }, port, adminPort)),
      )
      child.kill('SIGHUP')
      const deadline = Date.now() + RELOAD_TIMEOUT_MS
      while ((await reloads()) <= before) {
        if (Date.now() > deadline)
          throw new Error(`gateway ${setup.name} did not reload its config`)
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
      accessLog = on
    },
  }
}
