import { chmod, lstat, readdir } from 'node:fs/promises'
import { join } from 'node:path'

const PRIVATE_DIRECTORY = 0o700
const PRIVATE_FILE = 0o600
const GROUP_OR_OTHER = 0o077

export interface PrivacyReport {
  /** Entries whose mode gave the group or others any access, now 0700/0600. */
  readonly repaired: number
  /** Of those, entries the group or others could write. */
  readonly writableByOthers: number
}

/**
 * Makes a directory tree private to its owner: directories 0700, files 0600 (PostgreSQL's own
 * rule for a data directory). Symbolic links are left alone. Throws when an entry cannot be
 * changed (another user owns it).
 */
export async function makeTreePrivate(root: string): Promise<PrivacyReport> {
  let repaired = 0
  let writableByOthers = 0
  const visit = async (path: string): Promise<void> => {
    const stat = await lstat(path)
    if (stat.isSymbolicLink()) return
    const wanted = stat.isDirectory() ? PRIVATE_DIRECTORY : PRIVATE_FILE
    if ((stat.mode & GROUP_OR_OTHER) !== 0 || (stat.mode & 0o777 & wanted) !== wanted) {
      if ((stat.mode & 0o022) !== 0) writableByOthers++
      repaired++
      await chmod(path, wanted)
    }
    if (stat.isDirectory()) {
      for (const entry of await readdir(path)) await visit(join(path, entry))
    }
  }
  await visit(root)
  return { repaired, writableByOthers }
}

/** Runs `fn` with the process umask at 077, so that what it creates is private to the owner. */
export async function withPrivateUmask<T>(fn: () => Promise<T>): Promise<T> {
  const previous = process.umask(0o077)
  try {
    return await fn()
  } finally {
    process.umask(previous)
  }
}
