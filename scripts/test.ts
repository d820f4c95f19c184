/**
 * `npm test`: the whole suite, as CI runs it.
 *
 * 1. Type-checks the checkout as `npm run typecheck` does and writes its JavaScript, with source
 *    maps, into .build/ (tsc, incremental): tap runs the compiled tests (.taprc). Compiling each
 *    test file's imports again in every test process (tsx) cost about as much CPU as the tests
 *    themselves, and far more on a fresh machine, whose compile cache is empty. JavaScript whose
 *    TypeScript source is gone is removed, so that a deleted test never runs.
 * 2. Lints (`npm run lint`), beside steps 1 and 3: each of them keeps one core busy.
 * 3. Prepares what the test processes share, once rather than in each: the gateway built as
 *    `npm run build` builds it (dist/), the migrated embedded-store template, and a scratch
 *    directory in memory (test/helpers/built-gateway.ts, scratch-dir.ts).
 * 4. Runs tap (the unit test files a few to a process, scripts/test-groups.ts), then removes the
 *    scratch directory whatever the outcome.
 *
 * `npm test -- <files>` runs only those test files (a TypeScript path runs its compiled
 * JavaScript), without the lint and the coverage thresholds; other arguments go to tap. `npm run build:tests` does step 1 only.
 */
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, readdirSync, rmSync } from 'node:fs'
import { join, relative } from 'node:path'
import process from 'node:process'
import { PACKAGE_ROOT } from '../src/package-root.js'
import { buildGateway, makeStoreTemplate } from '../test/helpers/built-gateway.js'
import { prepareScratchDir, removeScratchDir } from '../test/helpers/scratch-dir.js'
import { fullRunFiles } from './test-groups.js'

const BUILD = '.build'
/** What tsc writes for each kind of source: the output's ending, and the source's. */
const OUTPUT_SOURCES: ReadonlyArray<readonly [string, string]> = [
  ['.js.map', '.ts'],
  ['.js', '.ts'],
]

function run(command: string, args: readonly string[]): number {
  const result = spawnSync(command, args, { cwd: PACKAGE_ROOT, stdio: 'inherit' })
  if (result.error !== undefined) throw result.error
  return result.status ?? 1
}

/** The source an output of tsc was written from, or undefined for a file tsc did not write. */
function sourceOf(output: string): string | undefined {
  const match = OUTPUT_SOURCES.find(([ending]) => output.endsWith(ending))
  if (match === undefined) return undefined
  const [ending, sourceEnding] = match
  return join(PACKAGE_ROOT, relative(BUILD, output.slice(0, -ending.length) + sourceEnding))
}

/** Type-checks and compiles; the exit status of tsc. */
function buildTests(): number {
  const status = run(join('node_modules', '.bin', 'tsc'), [
    '-p',
    'tsconfig.json',
    '--noEmit',
    'false',
    '--outDir',
    BUILD,
    '--incremental',
    '--tsBuildInfoFile',
    join(BUILD, 'tsconfig.tsbuildinfo'),
  ])
  if (status !== 0) return status
  const build = join(PACKAGE_ROOT, BUILD)
  for (const entry of readdirSync(build, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue
    const output = join(entry.parentPath, entry.name)
    const source = sourceOf(relative(PACKAGE_ROOT, output))
    if (source !== undefined && !existsSync(source)) rmSync(output)
  }
  return 0
}

/** A test file given by its TypeScript path runs as compiled. */
function tapArgument(arg: string): string {
  return /\.test\.ts$/.test(arg) && !arg.startsWith(`${BUILD}/`)
    ? join(BUILD, relative(PACKAGE_ROOT, join(process.cwd(), arg))).replace(/\.ts$/, '.js')
    : arg
}

/** A command running beside this script's own steps; resolves to its exit status. */
function start(
  command: string,
  args: readonly string[],
): { status: Promise<number>; stop(): void } {
  const child = spawn(command, args, { cwd: PACKAGE_ROOT, stdio: 'inherit' })
  const status = new Promise<number>((resolve, reject) => {
    child.once('error', reject)
    child.once('exit', (code) => resolve(code ?? 1))
  })
  return { status, stop: () => child.kill() }
}

const args = process.argv.slice(2)
const buildOnly = args.includes('--build-only')
const someFiles = args.some((arg) => !arg.startsWith('-'))
// ESLint and tsc each use one core: the lint runs beside the build and the preparation.
const lint = buildOnly || someFiles ? undefined : start('npm', ['run', '--silent', 'lint'])
const built = buildTests()
if (built !== 0) lint?.stop()
if (built !== 0 || buildOnly) process.exit(built)

prepareScratchDir()
let status = 1
try {
  buildGateway()
  await makeStoreTemplate()
  status = (await lint?.status) ?? 0
  if (status === 0) {
    const files = someFiles ? ['--allow-incomplete-coverage'] : fullRunFiles(PACKAGE_ROOT, BUILD)
    status = run(join('node_modules', '.bin', 'tap'), [...files, ...args.map(tapArgument)])
  }
} finally {
  removeScratchDir()
}
process.exit(status)
