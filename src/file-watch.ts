import { watch, type FSWatcher } from 'node:fs'
import { realpath } from 'node:fs/promises'
import { dirname } from 'node:path'
import type { Logger } from './logger.js'

/**
 * Watches the directories of `path` (and of its symlink target) rather than the file: an atomic
 * rename or the `..data` symlink swap of a Kubernetes volume replaces the inode, and a watch on
 * the old inode would never fire again. Every event calls `onChange`; the caller debounces and
 * compares content. Returns a function that stops watching.
 */
export async function watchFileDirectories(
  path: string,
  onChange: () => void,
  logger: Logger,
  /** What the file is, for log lines: `JWKS`, `config`. */
  what: string,
): Promise<() => void> {
  const directories = new Set([dirname(path)])
  try {
    directories.add(dirname(await realpath(path)))
  } catch {
    // Missing right now (mid-swap); the configured path's directory is still watched.
  }
  const watchers: FSWatcher[] = []
  for (const directory of directories) {
    try {
      const watcher = watch(directory, { persistent: false }, onChange)
      watcher.on('error', (error) => {
        logger.warn({ path, error: error.message }, `${what} watch stopped; reload with SIGHUP`)
      })
      watchers.push(watcher)
    } catch (error) {
      const message = error instanceof Error ? error.message : 'unknown'
      logger.warn({ path, error: message }, `cannot watch the ${what} file; reload with SIGHUP`)
    }
  }
  return () => {
    for (const watcher of watchers) watcher.close()
  }
}
