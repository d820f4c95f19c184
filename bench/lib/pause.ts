import { onCleanup } from './cleanup.js'

/** Processes stopped by whilePaused and not yet continued. */
const paused = new Set<number>()
let resumedAtCleanup = false

/** To a child's process group (nginx's workers with their master), else to the process alone. */
function signal(pid: number, name: 'SIGSTOP' | 'SIGCONT'): void {
  try {
    process.kill(-pid, name)
  } catch {
    try {
      process.kill(pid, name)
    } catch {
      // already gone
    }
  }
}

/**
 * Runs `measure` with the processes `pids` (and their process groups) stopped, and continues them
 * afterwards, also when it throws or the harness is interrupted meanwhile (a stopped process would
 * not act on the SIGTERM that cleanup sends). An idle Node server still wakes about a hundred
 * times a second (prom-client's event-loop monitor is a 10 ms timer): a dozen idle systems pinned
 * to the measured one's CPU preempt it a thousand times a second.
 */
export async function whilePaused<T>(
  pids: readonly number[],
  measure: () => Promise<T>,
): Promise<T> {
  if (!resumedAtCleanup) {
    resumedAtCleanup = true
    onCleanup(() => {
      for (const pid of paused) signal(pid, 'SIGCONT')
      paused.clear()
    })
  }
  for (const pid of pids) {
    paused.add(pid)
    signal(pid, 'SIGSTOP')
  }
  try {
    return await measure()
  } finally {
    for (const pid of pids) {
      signal(pid, 'SIGCONT')
      paused.delete(pid)
    }
  }
}
