import { existsSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

/**
 * The nearest directory above `start` that holds a package.json. The code runs at different
 * depths below the package root: from src/ (sources), dist/ (built, the image) and the tests'
 * build (.build/src/).
 */
export function findPackageRoot(start: string): string {
  for (let dir = start; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir
    if (dirname(dir) === dir) throw new Error(`no package.json in ${start} or above it`)
  }
}

/** Portcullis's package root: package.json, store-template/, config/. */
export const PACKAGE_ROOT = findPackageRoot(dirname(fileURLToPath(import.meta.url)))
