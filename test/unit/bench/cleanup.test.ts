import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { once } from 'node:events'
import { pathToFileURL } from 'node:url'
import { join } from 'node:path'
import t from 'tap'
import { PROJECT_ROOT } from '../../helpers/project-root.js'

const module = (path: string) => JSON.stringify(pathToFileURL(join(PROJECT_ROOT, path)).href)

/** Whether a process runs: a zombie waiting to be reaped has finished. */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z'
  } catch {
    return false
  }
}

void t.test(
  'a second signal during cleanup does not leave detached children running',
  async (t) => {
    // A harness with one detached child of its own group, as every system the bench starts; its
    // cleanup takes a while (as stopping PostgreSQL does), so the second signal arrives during it.
    const script = `
    import { installCleanup, onCleanup, start } from ${module('.build/bench/lib/cleanup.js')}
    installCleanup()
    onCleanup(() => new Promise((resolve) => setTimeout(resolve, 500)))
    const child = start('sleep', ['600'], { stdio: 'ignore' })
    process.stdout.write(child.pid + '\\n')
    setInterval(() => {}, 1000)
  `
    const harness = spawn(process.execPath, ['--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stderr = ''
    harness.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    // The child's pid, or the harness's end if it could not start.
    const child = await new Promise<number>((resolve, reject) => {
      harness.stdout?.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim())))
      harness.once('exit', () =>
        reject(new Error(`the harness exited before starting its child: ${stderr}`)),
      )
    })
    t.teardown(() => {
      if (alive(child)) process.kill(child, 'SIGKILL')
    })
    t.ok(alive(child), 'the child runs')
    const exited = once(harness, 'exit') as Promise<[number | null, NodeJS.Signals | null]>
    harness.kill('SIGTERM')
    // The second signal only once the first is being handled: two at once may arrive as one.
    while (!stderr.includes('SIGTERM: stopping every benchmark process'))
      await once(harness.stderr as NodeJS.ReadableStream, 'data')
    harness.kill('SIGTERM')
    const [code, signal] = await exited
    t.equal(signal, null, 'the second signal did not kill the harness')
    t.equal(code, 130, 'the harness finished its cleanup and exited')
    t.match(stderr, 'SIGTERM: still stopping every benchmark process')
    // The child was sent SIGTERM, then SIGKILL on exit: it goes, and init reaps it.
    while (alive(child)) await new Promise((resolve) => setTimeout(resolve, 10))
    t.pass('the child is gone')
  },
)
