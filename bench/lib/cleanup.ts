import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/**
 * Everything the harness starts or creates, undone on normal exit, on SIGINT/SIGTERM and on an
 * uncaught error: child process groups are killed, temp dirs removed, async teardowns awaited.
 */
const children = new Set<ChildProcess>()
const tempDirs = new Set<string>()
const teardowns: (() => unknown)[] = []
let installed = false
let cleaning: Promise<void> | undefined

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return
  try {
    // Detached children lead their own process group: this reaches nginx workers too.
    process.kill(-child.pid, signal)
  } catch {
    try {
      child.kill(signal)
    } catch {
      // already gone
    }
  }
}

/** Synchronous last resort (process 'exit'): SIGKILL every group, remove every temp dir. */
function cleanupSync(): void {
  for (const child of children) killGroup(child, 'SIGKILL')
  for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true })
}

export function installCleanup(): void {
  if (installed) return
  installed = true
  process.once('exit', cleanupSync)
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    // Not once: a second signal (Ctrl-C again, or one a wrapper relays after the same signal
    // reached this process directly) would kill it mid-cleanup, and the children, detached in
    // groups of their own, would be left running under the next run's measurements.
    process.on(signal, () => {
      if (cleaning !== undefined) {
        process.stderr.write(`${signal}: still stopping every benchmark process…\n`)
        return
      }
      process.stderr.write(`\n${signal}: stopping every benchmark process…\n`)
      void cleanup().finally(() => process.exit(130))
    })
  }
}

/** Runs the async teardowns (newest first), then kills what is left and removes temp dirs. */
export function cleanup(): Promise<void> {
  cleaning ??= (async () => {
    for (const teardown of teardowns.splice(0).reverse()) {
      try {
        await teardown()
      } catch (error) {
        process.stderr.write(`teardown failed: ${String(error)}\n`)
      }
    }
    for (const child of children) killGroup(child, 'SIGTERM')
    await new Promise((resolve) => setTimeout(resolve, 300))
    cleanupSync()
  })()
  return cleaning
}

export function onCleanup(teardown: () => unknown): void {
  teardowns.push(teardown)
}

/** The harness's Teardown for helpers that take one (test/helpers/postgres.ts). */
export const harnessTeardown = { teardown: onCleanup }

export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), `portcullis-bench-${prefix}-`))
  tempDirs.add(dir)
  return dir
}

export interface StartOptions extends Omit<SpawnOptions, 'detached'> {
  /** CPU list for taskset (e.g. "1"); ignored when taskset is not installed. */
  readonly cpus?: string | null
}

let tasksetPath: string | null = null
export function useTaskset(path: string | null): void {
  tasksetPath = path
}

/** Spawns a child in its own process group, pinned when asked, killed at cleanup. */
export function start(command: string, args: readonly string[], options: StartOptions = {}) {
  const { cpus, ...rest } = options
  const pinned = cpus !== undefined && cpus !== null && tasksetPath !== null
  const child = pinned
    ? spawn(tasksetPath as string, ['-c', cpus, command, ...args], { ...rest, detached: true })
    : spawn(command, [...args], { ...rest, detached: true })
  children.add(child)
  child.once('exit', () => children.delete(child))
  return child
}

/** Stops one child: SIGTERM, then SIGKILL after `graceMs`. */
export async function stop(child: ChildProcess, graceMs = 3_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  killGroup(child, 'SIGTERM')
  const timer = setTimeout(() => killGroup(child, 'SIGKILL'), graceMs)
  await exited
  clearTimeout(timer)
}
