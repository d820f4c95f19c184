import { closeSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { start } from '../lib/cleanup.js'
import { freePort, waitForHttp } from '../lib/net.js'
import { isAlive, logFile, runningSystem, tail, type RunningSystem } from './system.js'

const SERVER = fileURLToPath(new URL('../upstream/server.ts', import.meta.url))

/** The minimal node:http upstream, in its own process. */
export async function startUpstream(dir: string, cpus: string | null): Promise<RunningSystem> {
  const port = await freePort()
  const out = logFile(join(dir, 'upstream.log'))
  const child = start(process.execPath, ['--import', 'tsx', SERVER, String(port)], {
    cpus,
    stdio: ['ignore', out.fd, out.fd],
  })
  closeSync(out.fd)
  const log = out.path
  const baseUrl = `http://127.0.0.1:${port}`
  try {
    await waitForHttp(`${baseUrl}/health`, 'the upstream', isAlive(child), 20_000)
  } catch (error) {
    throw new Error(`${String(error)}\n${tail(log)}`, { cause: error })
  }
  return runningSystem('upstream', baseUrl, child)
}
