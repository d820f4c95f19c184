import { randomUUID } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { hostname } from 'node:os'

/** Who holds a data directory's lock: written into the lock file, read by whoever finds it. */
export interface LockHolder {
  readonly pid: number
  readonly host: string
  /** When the lock was taken (ISO 8601). */
  readonly since: string
  /** The kernel's boot id (Linux): a holder from an earlier boot of this machine is gone. */
  readonly boot: string | null
  /** Tells two locks of the same pid apart (one left by a crash, one just taken). */
  readonly nonce: string
}

/** This process as a holder, taking the lock now. */
export function thisProcess(): LockHolder {
  return {
    pid: process.pid,
    host: hostname(),
    since: new Date().toISOString(),
    boot: bootId(),
    nonce: randomUUID(),
  }
}

/** A lock file's text as a holder; undefined when it is not one (empty: still being written). */
export function parseHolder(text: string): LockHolder | undefined {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return undefined
  }
  if (typeof value !== 'object' || value === null) return undefined
  const { pid, host, since, boot, nonce } = value as Record<string, unknown>
  if (!Number.isSafeInteger(pid) || (pid as number) <= 0) return undefined
  if (typeof host !== 'string' || typeof since !== 'string' || typeof nonce !== 'string')
    return undefined
  return { pid: pid as number, host, since, boot: typeof boot === 'string' ? boot : null, nonce }
}

/** `pid 4242 on host build-1 since 2025-01-01T10:00:00.000Z`. */
export function describeHolder(holder: LockHolder): string {
  return `pid ${holder.pid} on host ${holder.host} since ${holder.since}`
}

/** What can be told of a holder from here. */
export type HolderState =
  | { readonly state: 'gone'; readonly reason: string }
  | { readonly state: 'running' }
  /** On another machine: only the lock file's refresh time can tell. */
  | { readonly state: 'elsewhere' }

/**
 * On this machine a process that no longer exists cannot hold the lock, nor can one of an earlier
 * boot, nor one whose pid is now this process's (a container restarted under the same host name
 * reuses its low pids); the caller has made sure that this process does not hold it itself.
 */
export function holderState(holder: LockHolder): HolderState {
  if (holder.host !== hostname()) return { state: 'elsewhere' }
  const boot = bootId()
  if (holder.boot !== null && boot !== null && holder.boot !== boot)
    return { state: 'gone', reason: 'the machine has restarted since' }
  if (holder.pid === process.pid)
    return { state: 'gone', reason: `pid ${holder.pid} is now this process` }
  return processExists(holder.pid)
    ? { state: 'running' }
    : { state: 'gone', reason: `no process ${holder.pid} runs` }
}

function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: it exists, owned by another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

let cachedBootId: string | null | undefined

function bootId(): string | null {
  if (cachedBootId === undefined) {
    try {
      cachedBootId = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || null
    } catch {
      cachedBootId = null
    }
  }
  return cachedBootId
}
