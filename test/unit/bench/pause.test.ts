import { spawn, type ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
import t from 'tap'
import { cleanup } from '../../../bench/lib/cleanup.js'
import { whilePaused } from '../../../bench/lib/pause.js'

/** The scheduler state of a process: `T` stopped, `S` sleeping, `R` running. */
function stateOf(pid: number): string {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0] ?? ''
}

/** Waits until the process is (or is no longer) stopped: a signal is delivered asynchronously. */
async function untilStopped(pid: number, stopped: boolean): Promise<void> {
  while ((stateOf(pid) === 'T') !== stopped) await new Promise((resolve) => setTimeout(resolve, 5))
}

/** A process group like nginx's: a leader and a child of its own, both idle. */
function group(): { leader: ChildProcess; childPid: Promise<number> } {
  const leader = spawn('sh', ['-c', 'sleep 600 & echo $!; wait'], {
    detached: true,
    stdio: ['ignore', 'pipe', 'ignore'],
  })
  const childPid = new Promise<number>((resolve) =>
    leader.stdout?.once('data', (chunk: Buffer) => resolve(Number(chunk.toString().trim()))),
  )
  return { leader, childPid }
}

function kill(leader: ChildProcess): void {
  if (leader.pid !== undefined) process.kill(-leader.pid, 'SIGKILL')
}

void t.test(
  'the processes and their groups are stopped while measuring, and continued after',
  async (t) => {
    const { leader, childPid } = group()
    t.teardown(() => kill(leader))
    const pid = leader.pid as number
    const child = await childPid
    const seen = await whilePaused([pid], async () => {
      await untilStopped(pid, true)
      await untilStopped(child, true)
      return [stateOf(pid), stateOf(child)]
    })
    t.same(seen, ['T', 'T'], 'the leader and its child were stopped during the measurement')
    await untilStopped(pid, false)
    await untilStopped(child, false)
    t.not(stateOf(pid), 'T', 'the leader runs again')
    t.not(stateOf(child), 'T', 'its child runs again')
  },
)

void t.test('a measurement that throws still continues them', async (t) => {
  const { leader } = group()
  t.teardown(() => kill(leader))
  const pid = leader.pid as number
  await t.rejects(
    whilePaused([pid], async () => {
      await untilStopped(pid, true)
      throw new Error('measurement failed')
    }),
    /measurement failed/,
  )
  await untilStopped(pid, false)
  t.not(stateOf(pid), 'T')
})

void t.test('an interrupted harness continues them before it stops its children', async (t) => {
  const { leader } = group()
  t.teardown(() => kill(leader))
  const pid = leader.pid as number
  let resumed = ''
  await whilePaused([pid], async () => {
    await untilStopped(pid, true)
    // What SIGINT does to the harness: cleanup runs while the measurement is still in progress.
    await cleanup()
    await untilStopped(pid, false)
    resumed = stateOf(pid)
  })
  t.not(resumed, 'T', 'cleanup continued the stopped process')
})

void t.test('a process already gone is skipped', async (t) => {
  const gone = spawn('true')
  await new Promise((resolve) => gone.once('exit', resolve))
  t.equal(await whilePaused([gone.pid as number], async () => 'measured'), 'measured')
})

void t.test('a process that leads no group of its own is stopped alone', async (t) => {
  // Not detached: it shares this test's process group, which must not be stopped.
  const single = spawn('sleep', ['600'], { stdio: 'ignore' })
  t.teardown(() => single.kill('SIGKILL'))
  const pid = single.pid as number
  const seen = await whilePaused([pid], async () => {
    await untilStopped(pid, true)
    return stateOf(pid)
  })
  t.equal(seen, 'T')
  await untilStopped(pid, false)
  t.not(stateOf(pid), 'T')
})
