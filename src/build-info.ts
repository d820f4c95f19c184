import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { PACKAGE_ROOT } from './package-root.js'

/** The build a process runs: `portcullis --version`, `portcullis_build_info`, the start-up line. */
export interface BuildInfo {
  readonly version: string
  /** The git commit it was built from, or `unknown`. */
  readonly commit: string
  readonly nodeVersion: string
}

/** What `npm run build` writes next to the compiled code (dist/build-info.json). */
export interface BuildRecord {
  readonly version: string
  readonly commit: string
}

export const UNKNOWN_COMMIT = 'unknown'

/** A commit as a label value may carry it: a hash, a tag, a `describe` output. */
const COMMIT_NAME = /^[0-9A-Za-z][0-9A-Za-z._+-]{0,63}$/

export const BUILD_RECORD_FILE = 'build-info.json'

export function isCommitName(value: string): boolean {
  return COMMIT_NAME.test(value)
}

/** The version in package.json. */
export function packageVersion(): string {
  const text = readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')
  return (JSON.parse(text) as { version: string }).version
}

/**
 * The commit checked out in `dir`, asking git; undefined where there is no git or no repository
 * (a Docker image has neither: it reads the build record instead).
 */
export function commitFromGit(dir: string): string | undefined {
  try {
    const commit = execFileSync('git', ['rev-parse', 'HEAD'], {
      cwd: dir,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 5_000,
    }).trim()
    return isCommitName(commit) ? commit : undefined
  } catch {
    return undefined
  }
}

function readBuildRecord(): BuildRecord | undefined {
  let text: string
  try {
    text = readFileSync(new URL(BUILD_RECORD_FILE, import.meta.url), 'utf8')
  } catch {
    return undefined
  }
  const record = JSON.parse(text) as Partial<BuildRecord>
  if (typeof record.version !== 'string' || typeof record.commit !== 'string') {
    throw new Error(`${BUILD_RECORD_FILE}: not a build record (version and commit expected)`)
  }
  return { version: record.version, commit: record.commit }
}

let cached: BuildInfo | undefined

/**
 * The running build. A built gateway (dist/, the Docker image) reads the record `npm run build`
 * wrote beside it; one running from a checkout's sources asks git; otherwise the commit is
 * `unknown`. Read once per process.
 */
export function buildInfo(): BuildInfo {
  if (cached !== undefined) return cached
  const record = readBuildRecord()
  cached = {
    version: record?.version ?? packageVersion(),
    commit: record?.commit ?? commitFromGit(PACKAGE_ROOT) ?? UNKNOWN_COMMIT,
    nodeVersion: process.version,
  }
  return cached
}

/** `0.1.0 (commit 328a258…, Node.js v20.18.1)`: what `--version` prints. */
export function describeBuild(build: BuildInfo): string {
  return `${build.version} (commit ${build.commit}, Node.js ${build.nodeVersion})`
}
