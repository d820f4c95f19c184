import { spawn, type ChildProcess } from 'node:child_process'
import { createInterface } from 'node:readline'
import t from 'tap'
import { childEnv, PROJECT_ROOT } from '../../helpers/child-process.js'
import { freshEmbeddedDataDir } from '../../helpers/embedded-store.js'
import type { Teardown } from '../../helpers/gateway.js'
import { isListening } from '../../helpers/ports.js'
import { closedPort } from '../../helpers/runtime.js'
import { waitFor } from '../../helpers/wait.js'

interface Demo {
  readonly npm: ChildProcess
  readonly ports: readonly number[]
  readonly banner: string[]
}

/**
 * `npm run demo` as a user starts it, on free ports and a private store, in its own process group
 * (so that teardown can end whatever is left, and so that a signal to npm reaches npm only, as
 * `kill <npm pid>` from another terminal does).
 */
async function startDemo(t: Teardown): Promise<Demo> {
  const ports = [await closedPort(), await closedPort(), await closedPort()]
  const [gateway, admin, runtime] = ports.map(String)
  const npm = spawn('npm', ['run', 'demo'], {
    cwd: PROJECT_ROOT,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: childEnv({
      PORTCULLIS_PORT: gateway ?? '',
      PORTCULLIS_ADMIN_PORT: admin ?? '',
      DEMO_RUNTIME_PORT: runtime ?? '',
      PORTCULLIS_DATA_DIR: await freshEmbeddedDataDir(t),
    }),
  })
  t.teardown(() => {
    try {
      process.kill(-(npm.pid ?? 0), 'SIGKILL')
    } catch {
      // the group is gone
    }
  })
  const banner: string[] = []
  if (npm.stdout !== null)
    createInterface({ input: npm.stdout }).on('line', (line) => banner.push(line))
  npm.stderr?.resume()
  await waitFor(
    () => banner.some((line) => line.startsWith('Stop: Ctrl-C')),
    'the demo banner',
    90_000,
    50,
  )
  return { npm, ports, banner }
}

async function listening(ports: readonly number[]): Promise<boolean[]> {
  return Promise.all(ports.map((port) => isListening(port)))
}

/** Which ports still listen once all have closed, or when `timeoutMs` is over. */
async function closedWithin(ports: readonly number[], timeoutMs: number): Promise<boolean[]> {
  const deadline = Date.now() + timeoutMs
  let open = await listening(ports)
  while (open.includes(true) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100))
    open = await listening(ports)
  }
  return open
}

void t.test('the demo stops with npm when npm gets SIGTERM', async (t) => {
  const demo = await startDemo(t)
  t.same(await listening(demo.ports), [true, true, true], 'gateway, admin and runtime listen')
  t.match(demo.banner.join('\n'), /Stop: Ctrl-C, or kill \d+ \(or the npm process\)/)
  process.kill(demo.npm.pid ?? 0, 'SIGTERM')
  t.same(await closedWithin(demo.ports, 30_000), [false, false, false], 'nothing listens any more')
})

void t.test('the demo stops when npm is killed outright', async (t) => {
  const demo = await startDemo(t)
  process.kill(demo.npm.pid ?? 0, 'SIGKILL')
  t.same(await closedWithin(demo.ports, 30_000), [false, false, false], 'nothing listens any more')
})
