/**
 * Made once per test run by `npm test` (scripts/test.ts) before tap starts, for every test process:
 *
 * - the gateway as `npm run build` makes it (dist/main.js), for the tests that run it as a
 *   process. Built again only when a file under src/ or a tsconfig changed since (tsc
 *   incremental, build info in dist/);
 * - a migrated embedded store, which each test gateway gets a copy of (embedded-store.ts):
 *   initialising PGlite takes seconds, once per run rather than once per test file. Made by the
 *   built store code, again whenever the build changes.
 */
import { execFileSync } from 'node:child_process'
import {
  existsSync,
  mkdirSync,
  readdirSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs'
import { join } from 'node:path'
import process from 'node:process'
import { pathToFileURL } from 'node:url'
import type * as Logger from '../../src/logger.js'
import type * as PgliteClient from '../../src/service-accounts/pglite-client.js'
import type * as SqlStore from '../../src/service-accounts/sql-store.js'
import { PROJECT_ROOT as ROOT } from './project-root.js'

const DIST = join(ROOT, 'dist')
/** Written after each build: the sources are older than it when dist/ is up to date. */
const STAMP = join(DIST, '.test-build-stamp')

/** The built entry point. */
export const BUILT_MAIN = join(DIST, 'main.js')

/** The latest change under src/ (files and directories, so that a deletion counts) or a tsconfig. */
function newestSourceChange(): number {
  let newest = 0
  const visit = (path: string): void => {
    const stat = statSync(path)
    newest = Math.max(newest, stat.mtimeMs)
    if (stat.isDirectory()) for (const entry of readdirSync(path)) visit(join(path, entry))
  }
  visit(join(ROOT, 'src'))
  for (const file of ['tsconfig.json', 'tsconfig.build.json'])
    newest = Math.max(newest, statSync(join(ROOT, file)).mtimeMs)
  return newest
}

/** True when dist/ holds a build of the current sources. */
export function builtGatewayIsCurrent(): boolean {
  return (
    existsSync(BUILT_MAIN) && existsSync(STAMP) && statSync(STAMP).mtimeMs >= newestSourceChange()
  )
}

/**
 * Builds dist/ unless it is current, without type checking (`--noCheck`: about a sixth of a
 * checked build; `npm test` type-checks the whole checkout before). Anything
 * that fails does stop it.
 */
export function buildGateway(): void {
  if (builtGatewayIsCurrent()) return
  const started = new Date()
  const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc')
  const args = [
    '-p',
    'tsconfig.build.json',
    '--noCheck',
    '--incremental',
    '--tsBuildInfoFile',
    join(DIST, '.tsbuildinfo'),
  ]
  try {
    execFileSync(process.execPath, [tsc, ...args], {
      cwd: ROOT,
      // tsc reports on stdout; the test runner's stdout is its report.
      stdio: ['ignore', 2, 'inherit'],
    })
  } catch (error) {
    // tsc's exit status 2: diagnostics reported, output generated.
    if ((error as { status?: number }).status !== 2 || !existsSync(BUILT_MAIN)) throw error
    process.stderr.write(`tsc reported type errors (npm run typecheck); dist/ was built anyway\n`)
  }
  // Dated when the build began: a source saved while it ran is newer, and is built next time.
  writeFileSync(STAMP, `${started.toISOString()}\n`)
  utimesSync(STAMP, started, started)
}

const STORE_ROOT = join(ROOT, '.tap', 'embedded-store-template')
/** Written once the template is complete, after the build it was made with. */
const STORE_STAMP = join(STORE_ROOT, 'complete')

/** The migrated embedded-store directory to copy, or undefined when it is not from this build. */
export function currentStoreTemplate(): string | undefined {
  if (!builtGatewayIsCurrent() || !existsSync(STORE_STAMP)) return undefined
  return statSync(STORE_STAMP).mtimeMs >= statSync(STAMP).mtimeMs
    ? join(STORE_ROOT, 'db')
    : undefined
}

/** Makes the store template with the built code unless the current one is from this build. */
export async function makeStoreTemplate(): Promise<void> {
  if (currentStoreTemplate() !== undefined) return
  rmSync(STORE_ROOT, { recursive: true, force: true })
  mkdirSync(STORE_ROOT, { recursive: true })
  const built = <T>(path: string): Promise<T> =>
    import(pathToFileURL(join(DIST, path)).href) as Promise<T>
  const { PgliteSqlClient } = await built<typeof PgliteClient>('service-accounts/pglite-client.js')
  const { SqlServiceAccountStore } = await built<typeof SqlStore>('service-accounts/sql-store.js')
  const { createLogger } = await built<typeof Logger>('logger.js')
  const store = new SqlServiceAccountStore(await PgliteSqlClient.open(join(STORE_ROOT, 'db')), {
    logger: createLogger({ level: 'silent' }),
  })
  await store.migrate()
  await store.close()
  writeFileSync(STORE_STAMP, `${new Date().toISOString()}\n`)
}
