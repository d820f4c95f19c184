import { closeSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { start } from '../lib/cleanup.js'
import { freePort, waitForHttp } from '../lib/net.js'
import { isAlive, logFile, nodeCommand, runningSystem, tail, type RunningSystem } from './system.js'

const SERVER = fileURLToPath(new URL('../upstream/server.ts', import.meta.url))
const BARE_PROXY = fileURLToPath(new URL('../upstream/bare-proxy.ts', import.meta.url))
const KOA_PROXY = fileURLToPath(new URL('../upstream/koa-proxy.ts', import.meta.url))

/** The minimal node:http upstream, in its own process. */
export async function startUpstream(dir: string, cpus: string | null): Promise<RunningSystem> {
  return startNodeServer('upstream', SERVER, [], dir, cpus)
}

/** node:http + an undici pool with no logic: the floor under any Node proxy (and Portcullis). */
export async function startBareProxy(
  dir: string,
  upstreamUrl: string,
  cpus: string | null,
): Promise<RunningSystem> {
  return startNodeServer('node-floor', BARE_PROXY, [upstreamUrl], dir, cpus)
}

/** The bare proxy's relay as Koa middleware: the floor under a Koa gateway (and Portcullis). */
export async function startKoaProxy(
  dir: string,
  upstreamUrl: string,
  cpus: string | null,
  options: Pick<
    NodeServerOptions,
    'cpuProfileDir' | 'nodeArgs' | 'wrapper' | 'readyTimeoutMs'
  > = {},
): Promise<RunningSystem> {
  return startNodeServer('koa-floor', KOA_PROXY, [upstreamUrl], dir, cpus, options)
}

export interface NodeServerOptions {
  /** Sent with the readiness check of `/health`. */
  readonly headers?: Record<string, string>
  /**
   * Where to write V8 CPU profiles of the server: a directory `<name>/` below it, one file per
   * thread (tsx's loader runs in a worker of its own), the largest being the server's.
   */
  readonly cpuProfileDir?: string
  /** Extra options for node itself (before the script), e.g. `--inspect-port=…`. */
  readonly nodeArgs?: readonly string[]
  /** A command node runs under (`valgrind --tool=callgrind …`), in the same process. */
  readonly wrapper?: readonly string[]
  /** How long the server may take to answer /health (default 20 s; longer under a wrapper). */
  readonly readyTimeoutMs?: number
}

/** A bench server in a Node process of its own, ready once `/health` answers 200 (with `headers`). */
export async function startNodeServer(
  name: string,
  script: string,
  args: readonly string[],
  dir: string,
  cpus: string | null,
  {
    headers = {},
    cpuProfileDir,
    nodeArgs = [],
    wrapper = [],
    readyTimeoutMs = 20_000,
  }: NodeServerOptions = {},
): Promise<RunningSystem> {
  const port = await freePort()
  const out = logFile(join(dir, `${name}.log`))
  const profile =
    cpuProfileDir === undefined ? [] : ['--cpu-prof', '--cpu-prof-dir', join(cpuProfileDir, name)]
  const node = [...nodeArgs, ...profile, '--import', 'tsx', script, String(port), ...args]
  const { command, args: commandArgs } = nodeCommand(wrapper, node)
  const child = start(command, commandArgs, {
    cpus,
    stdio: ['ignore', out.fd, out.fd],
  })
  closeSync(out.fd)
  const log = out.path
  const baseUrl = `http://127.0.0.1:${port}`
  try {
    await waitForHttp(`${baseUrl}/health`, `the ${name}`, isAlive(child), readyTimeoutMs, headers)
  } catch (error) {
    throw new Error(`${String(error)}\n${tail(log)}`, { cause: error })
  }
  return runningSystem(name, baseUrl, child)
}
