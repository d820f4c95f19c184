import type { ChildProcess } from 'node:child_process'
import { openSync, readFileSync, truncateSync } from 'node:fs'
import { stop } from '../lib/cleanup.js'

/** A running server of the benchmark: where to reach it and which processes to account. */
export interface RunningSystem {
  readonly name: string
  /** http://127.0.0.1:port, no trailing slash. */
  readonly baseUrl: string
  /** Root processes; their descendants (nginx workers) are counted with them. */
  readonly pids: readonly number[]
  readonly child: ChildProcess
  stop(): Promise<void>
}

/**
 * A log file opened for appending, to give a child as its stdout and stderr: the child writes to
 * it directly (the harness never relays a line), and it can be truncated between measurements.
 */
export function logFile(path: string): { path: string; fd: number } {
  return { path, fd: openSync(path, 'a') }
}

/** Empties a log file; the child's appending writes go on at the new end. */
export function truncateLog(path: string): void {
  try {
    truncateSync(path, 0)
  } catch {
    // gone already
  }
}

export function tail(path: string, chars = 2_000): string {
  try {
    const text = readFileSync(path, 'utf8')
    return text.slice(-chars)
  } catch {
    return '(no log)'
  }
}

export function runningSystem(
  name: string,
  baseUrl: string,
  child: ChildProcess,
  extraStop?: () => Promise<void>,
): RunningSystem {
  if (child.pid === undefined) throw new Error(`${name} did not start`)
  return {
    name,
    baseUrl,
    pids: [child.pid],
    child,
    async stop() {
      await stop(child)
      await extraStop?.()
    },
  }
}

export function isAlive(child: ChildProcess): () => boolean {
  return () => child.exitCode === null && child.signalCode === null
}

/** node with its arguments, run under `wrapper` when one is given (in the same process). */
export function nodeCommand(
  wrapper: readonly string[],
  args: readonly string[],
): { command: string; args: string[] } {
  const [first, ...rest] = wrapper
  return first === undefined
    ? { command: process.execPath, args: [...args] }
    : { command: first, args: [...rest, process.execPath, ...args] }
}
