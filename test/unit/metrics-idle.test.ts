import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import t from 'tap'
import { PROJECT_ROOT } from '../helpers/project-root.js'

/** How long each idle process is watched. */
const WINDOW_MS = 2_000
/** A 100 ms monitor wakes 20 times in the window, prom-client's default 10 ms one 200 times. */
const MOST_EXPECTED = 60
/**
 * libuv re-arms a repeating timer from when it fired, so a late wake-up makes the rest later: on a
 * busy machine a 10 ms monitor still wakes at least this often unless each wake-up is 18 ms late.
 */
const LEAST_AT_TEN_MS = 70

/** The times a process's main thread went to sleep and was woken (a thread's voluntary switches). */
function mainThreadWakeUps(pid: number): number {
  const status = readFileSync(`/proc/${pid}/task/${pid}/status`, 'utf8')
  const match = /^voluntary_ctxt_switches:\s+(\d+)$/m.exec(status)
  if (match === null) throw new Error(`no voluntary_ctxt_switches for ${pid}`)
  return Number(match[1])
}

/**
 * Starts `setup` in a process of its own that then does nothing, and counts its main thread's
 * wake-ups over WINDOW_MS once the setup is done.
 */
async function idleWakeUps(setup: string): Promise<number> {
  const script = `${setup}
    setInterval(() => {}, 3_600_000)
    process.stdout.write('ready\\n')`
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    cwd: PROJECT_ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  try {
    // A setup that fails ends the process: that is a failure here, not a wait until the timeout.
    const exited = once(child, 'exit').then(([code]) => {
      throw new Error(`the idle process exited (${String(code)}) before it was ready`)
    })
    await Promise.race([once(child.stdout, 'data'), exited])
    const before = mainThreadWakeUps(child.pid as number)
    await new Promise((resolve) => setTimeout(resolve, WINDOW_MS))
    return mainThreadWakeUps(child.pid as number) - before
  } finally {
    child.kill('SIGKILL')
  }
}

void t.test(
  "an idle process with the gateway's metrics wakes every 100 ms, not every 10 ms",
  async (t) => {
    const metrics = JSON.stringify(pathToFileURL(join(PROJECT_ROOT, '.build/src/metrics.js')).href)
    const [gateway, tenMs] = await Promise.all([
      // The process metrics on, as `portcullis serve` collects them.
      idleWakeUps(`
      import { Metrics } from ${metrics}
      globalThis.metrics = new Metrics()`),
      // prom-client's own default, measured the same way: the count can see these wake-ups.
      idleWakeUps(`
      import { monitorEventLoopDelay } from 'node:perf_hooks'
      monitorEventLoopDelay({ resolution: 10 }).enable()`),
    ])
    // A busy machine delays timers, which makes fewer wake-ups, never more.
    t.ok(
      gateway <= MOST_EXPECTED,
      `${gateway} wake-ups in ${WINDOW_MS} ms (at most ${MOST_EXPECTED})`,
    )
    t.ok(tenMs >= LEAST_AT_TEN_MS, `${tenMs} wake-ups at prom-client's default 10 ms`)
  },
)
