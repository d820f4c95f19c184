import { execFileSync } from 'node:child_process'
import { processTree } from './proc.js'

/** Where the system under test and the load generators run. */
export interface Pinning {
  /** CPU list of the system under test; null: not pinned. */
  readonly sut: string | null
  /** CPU list of the load generators and the upstream. */
  readonly generator: string | null
  readonly taskset: string | null
  readonly description: string
}

export function choosePinning(taskset: string | null, cores: number): Pinning {
  if (taskset === null) {
    return { sut: null, generator: null, taskset, description: 'not pinned (taskset missing)' }
  }
  if (cores < 2) {
    return { sut: null, generator: null, taskset, description: 'not pinned (one core)' }
  }
  const last = String(cores - 1)
  const rest = cores === 2 ? '0' : `0-${cores - 2}`
  return {
    sut: last,
    generator: rest,
    taskset,
    description: `system under test on CPU ${last}; load generator and upstream on CPU ${rest}`,
  }
}

/** Moves a running process tree (every thread) to `cpus`. */
export function repin(pinning: Pinning, root: number, cpus: string | null): void {
  if (pinning.taskset === null || cpus === null) return
  for (const pid of processTree(root)) {
    try {
      execFileSync(pinning.taskset, ['-a', '-p', '-c', cpus, String(pid)], { stdio: 'ignore' })
    } catch {
      // exited meanwhile
    }
  }
}
