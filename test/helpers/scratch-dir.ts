/**
 * Where the test processes and their children write scratch files (embedded stores of 39 MB per
 * test gateway, configs, keys): a directory in memory (/dev/shm) when the machine has room there,
 * made by `npm test` (scripts/test.ts) before tap starts and removed after it ends, else the system's temporary
 * directory. On disk, the stores' writes and their removal cost more than the tests themselves on
 * a busy machine; a container's small /dev/shm (64 MB by default) is not used.
 */
import { createHash } from 'node:crypto'
import { chmodSync, existsSync, mkdirSync, rmSync, statfsSync } from 'node:fs'
import { join } from 'node:path'
import process from 'node:process'
import { PROJECT_ROOT } from './project-root.js'

const MEMORY = '/dev/shm'
/** Room for the stores of the test files running side by side, with a wide margin. */
const MIN_FREE_BYTES = 2 * 1024 ** 3

/** One per checkout, so that runs in two worktrees never remove each other's files. */
export const SCRATCH_DIR = join(
  MEMORY,
  `portcullis-tests-${createHash('sha256').update(PROJECT_ROOT).digest('hex').slice(0, 12)}`,
)

function memoryHasRoom(): boolean {
  try {
    const stats = statfsSync(MEMORY)
    return stats.bavail * stats.bsize >= MIN_FREE_BYTES
  } catch {
    return false
  }
}

/** Before the suite: a fresh scratch directory in memory, when there is room for one. */
export function prepareScratchDir(): void {
  removeScratchDir()
  if (!memoryHasRoom()) return
  mkdirSync(SCRATCH_DIR)
  // As /tmp: the PostgreSQL tests' server runs as another user, in directories made here.
  chmodSync(SCRATCH_DIR, 0o1777)
}

/** After the suite. */
export function removeScratchDir(): void {
  rmSync(SCRATCH_DIR, { recursive: true, force: true })
}

/** In each test process, before anything asks for the temporary directory; children inherit it. */
export function useScratchDir(): void {
  if (existsSync(SCRATCH_DIR)) process.env.TMPDIR = SCRATCH_DIR
}
