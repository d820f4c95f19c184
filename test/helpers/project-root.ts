import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { PACKAGE_ROOT } from '../../src/package-root.js'

/** The checkout's root, whether a test runs from its source or from the tests' build (.build/). */
export const PROJECT_ROOT = PACKAGE_ROOT

/** A path in the checkout, given from its root; a trailing slash is kept. */
export function projectPath(path: string): string {
  return join(PROJECT_ROOT, path)
}

/** `projectPath` as a file: URL. */
export function projectUrl(path: string): URL {
  return pathToFileURL(projectPath(path))
}
