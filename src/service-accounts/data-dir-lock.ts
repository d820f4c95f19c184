import { readFileSync, unlinkSync } from 'node:fs'
import { link, open, readFile, rename, stat, unlink, utimes } from 'node:fs/promises'
import { join } from 'node:path'
import {
  describeHolder,
  holderState,
  parseHolder,
  thisProcess,
  type LockHolder,
} from './lock-holder.js'

/** The lock file, inside the data directory (often a volume whose parent is not writable). */
export const LOCK_FILE = 'portcullis.lock'

/** The holder touches the lock file this often; a file untouched for STALE_MS has no holder. */
const REFRESH_MS = 5_000
const STALE_MS = 30_000
/** Rounds of inspect-and-take-over before giving up (only a race of several starters needs two). */
const ATTEMPTS = 5

/** The data directory is held by another process (or already by this one). */
export class DataDirInUseError extends Error {
  readonly holder: LockHolder | undefined

  constructor(message: string, holder: LockHolder | undefined) {
    super(message)
    this.name = 'DataDirInUseError'
    this.holder = holder
  }
}

/** A lock this process took over from a holder that was gone, and why it was judged gone. */
export interface TakeOver {
  readonly holder: LockHolder | undefined
  readonly reason: string
}

export interface DataDirLockOptions {
  /**
   * Called once if the lock file is removed or replaced while held: another process may now use
   * the directory, and this one must stop writing to it at once.
   */
  readonly onLost?: (problem: string) => void
}

/** Locks held by this process, by lock-file path: released when the process exits. */
const held = new Map<string, DataDirLock>()
/** Lock files this process is taking now (an acquire awaits between its check and its create). */
const taking = new Set<string>()
let exitHookInstalled = false

/**
 * One process per data directory. The lock is a file created with O_EXCL, naming its holder (pid,
 * host, boot, since); the holder touches it every few seconds. A lock whose holder is gone is
 * taken over: on this machine when its process no longer runs (at once), from another machine
 * when the file has not been touched for STALE_MS. Taking over renames the stale file away first
 * and checks that it was the one judged stale, so two processes starting at once cannot both win.
 */
export class DataDirLock {
  readonly path: string
  readonly holder: LockHolder
  /** Set when the lock was taken over from a holder that was gone. */
  readonly tookOver: TakeOver | undefined
  readonly #text: string
  readonly #onLost: ((problem: string) => void) | undefined
  readonly #timer: NodeJS.Timeout
  #released = false

  private constructor(
    path: string,
    holder: LockHolder,
    text: string,
    tookOver: TakeOver | undefined,
    options: DataDirLockOptions,
  ) {
    this.path = path
    this.holder = holder
    this.tookOver = tookOver
    this.#text = text
    this.#onLost = options.onLost
    this.#timer = setInterval(() => void this.#refresh(), REFRESH_MS)
    this.#timer.unref()
  }

  /** Takes the lock of `dataDir` (which exists); throws DataDirInUseError when it is held. */
  static async acquire(dataDir: string, options: DataDirLockOptions = {}): Promise<DataDirLock> {
    const path = join(dataDir, LOCK_FILE)
    refuseIfHeldHere(path)
    taking.add(path)
    try {
      const holder = thisProcess()
      const text = `${JSON.stringify(holder)}\n`
      let tookOver: TakeOver | undefined
      for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
        if (await createExclusive(path, text)) {
          const lock = new DataDirLock(path, holder, text, tookOver, options)
          held.set(path, lock)
          installExitHook()
          return lock
        }
        const found = await inspect(path)
        if (found === undefined) continue // removed meanwhile: try again
        const reason = staleReason(found)
        if (reason === undefined) throw inUse(found)
        if (await removeIfUnchanged(path, found.text, holder.nonce))
          tookOver = { holder: found.holder, reason }
      }
      throw new DataDirInUseError('other processes keep taking it', undefined)
    } finally {
      taking.delete(path)
    }
  }

  /**
   * Throws DataDirInUseError when `dataDir` is held by a live process, without taking it: for a
   * program that must know before it starts other things (the demo starts its runtime first).
   */
  static async check(dataDir: string): Promise<void> {
    const path = join(dataDir, LOCK_FILE)
    refuseIfHeldHere(path)
    const found = await inspect(path)
    if (found !== undefined && staleReason(found) === undefined) throw inUse(found)
  }

  /** Removes the lock file if it is still this lock's. Idempotent. */
  async release(): Promise<void> {
    if (!this.#stop()) return
    try {
      if ((await readFile(this.path, 'utf8')) === this.#text) await unlink(this.path)
    } catch {
      // Already gone, or the directory with it: nothing to release.
    }
  }

  /** release(), synchronously: for the process's `exit` event. */
  releaseSync(): void {
    if (!this.#stop()) return
    try {
      if (readFileSync(this.path, 'utf8') === this.#text) unlinkSync(this.path)
    } catch {
      // As in release().
    }
  }

  #stop(): boolean {
    if (this.#released) return false
    this.#released = true
    clearInterval(this.#timer)
    if (held.get(this.path) === this) held.delete(this.path)
    return true
  }

  async #refresh(): Promise<void> {
    let problem: string | undefined
    try {
      if ((await readFile(this.path, 'utf8')) !== this.#text) {
        problem = `the lock file ${this.path} now names another process`
      } else {
        const now = new Date()
        await utimes(this.path, now, now)
      }
    } catch (error) {
      // Another error (EIO, a full disk) is tried again next time.
      if ((error as NodeJS.ErrnoException).code === 'ENOENT')
        problem = `the lock file ${this.path} was removed`
    }
    if (problem === undefined || this.#released) return
    this.#stop()
    this.#onLost?.(problem)
  }
}

/** Creates the lock file with `text`, or returns false when it exists. */
async function createExclusive(path: string, text: string): Promise<boolean> {
  let handle
  try {
    handle = await open(path, 'wx', 0o600)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false
    throw error
  }
  try {
    await handle.writeFile(text)
    await handle.sync()
  } finally {
    await handle.close()
  }
  return true
}

function refuseIfHeldHere(path: string): void {
  if (held.has(path) || taking.has(path))
    throw new DataDirInUseError('it is already open in this process', held.get(path)?.holder)
}

function inUse(found: Found): DataDirInUseError {
  return new DataDirInUseError(
    found.holder === undefined
      ? 'another process is taking it now'
      : `it is in use by ${describeHolder(found.holder)}`,
    found.holder,
  )
}

interface Found {
  readonly text: string
  readonly holder: LockHolder | undefined
  readonly ageMs: number
}

async function inspect(path: string): Promise<Found | undefined> {
  try {
    const [text, info] = await Promise.all([readFile(path, 'utf8'), stat(path)])
    return { text, holder: parseHolder(text), ageMs: Date.now() - info.mtimeMs }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw error
  }
}

/**
 * Why a found lock has no live holder, or undefined when it may have one. A holder on this machine
 * is judged by its process alone (a live one is never taken over, however busy); one elsewhere,
 * or a file still being written, by the time since the file was last refreshed.
 */
function staleReason(found: Found): string | undefined {
  const holder = found.holder === undefined ? undefined : holderState(found.holder)
  if (holder?.state === 'gone') return holder.reason
  if (holder?.state === 'running') return undefined
  if (found.ageMs > STALE_MS)
    return `its lock file was not refreshed for ${Math.round(found.ageMs / 1000)} s`
  return undefined
}

/**
 * Moves the stale lock file aside and deletes it if it is still the one inspected (`text`);
 * otherwise another starter replaced it meanwhile, and it is put back. True when removed.
 */
export async function removeIfUnchanged(
  path: string,
  text: string,
  nonce: string,
): Promise<boolean> {
  const aside = `${path}.stale-${nonce}`
  try {
    await rename(path, aside)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false
    throw error
  }
  try {
    if ((await readFile(aside, 'utf8')) === text) return true
    // A fresh lock: back where it was, unless yet another has appeared (its holder then sees
    // its file replaced and stops).
    await link(aside, path).catch(() => undefined)
    return false
  } finally {
    await unlink(aside).catch(() => undefined)
  }
}

function installExitHook(): void {
  if (exitHookInstalled) return
  exitHookInstalled = true
  process.on('exit', () => {
    for (const lock of [...held.values()]) lock.releaseSync()
  })
}
