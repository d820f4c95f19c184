/**
 * The full run's test processes. Every test process pays tap's and the coverage loader's start-up
 * (about 1.4 s of CPU on 2 cores, measured: 30 small unit files took 63 s of CPU as 30 processes
 * and 26 s as one), so the unit, security and conformance test files run together, a few to a
 * process; every other file, and a file that says it needs one, runs in a process of its own. A
 * file needs its own process when it holds something big until the process ends (an embedded
 * store, a PostgreSQL server) or measures the process (its memory): its source says so with
 * `OWN_PROCESS_MARK`.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'

/** A comment line in a unit test file's source that keeps it out of the groups. */
export const OWN_PROCESS_MARK = 'Runs in a test process of its own:'

/**
 * The directories whose files are grouped, and into how many processes: side by side the groups
 * keep both cores busy, and each stays far from its timeout.
 */
const GROUPED: ReadonlyArray<readonly [dir: string, groups: number]> = [
  ['unit', 4],
  ['security', 2],
  ['conformance', 2],
]
/** A group's budget: the sum of its files', each of which must stay far below tap's 120 s. */
const GROUP_TIMEOUT_MS = 480_000

/** Every compiled test file under `dir`, relative to `root`, sorted. */
function testFiles(root: string, dir: string): string[] {
  if (!existsSync(join(root, dir))) return []
  return readdirSync(join(root, dir), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.test.js'))
    .map((entry) => relative(root, join(entry.parentPath, entry.name)))
    .sort()
}

function ownsProcess(root: string, build: string, file: string): boolean {
  const source = join(root, relative(build, file)).replace(/\.js$/, '.ts')
  return readFileSync(source, 'utf8').includes(OWN_PROCESS_MARK)
}

/**
 * One group file: loads its members one after another, each inside a subtest of its own, so that
 * the root test is never idle while a member's top-level code runs (tap ends a root test that has
 * a teardown once it is idle) and a member that cannot load fails there. A member's tests queue
 * behind its loading, and the next member loads behind them: no member's top-level code runs
 * while another's tests do.
 */
function groupSource(groupDir: string, root: string, members: readonly string[]): string {
  const lines = ["import t from 'tap'", `t.setTimeout(${GROUP_TIMEOUT_MS})`]
  for (const member of members) {
    const path = relative(join(root, groupDir), join(root, member))
    lines.push(`await t.test(${JSON.stringify(member)}, () => import(${JSON.stringify(path)}))`)
  }
  return `${lines.join('\n')}\n`
}

/**
 * The test files of the full run, relative to `root`: the groups (written into `<build>/groups`),
 * then every other file.
 */
export function fullRunFiles(root: string, build: string): string[] {
  const groupDir = join(build, 'groups')
  rmSync(join(root, groupDir), { recursive: true, force: true })
  mkdirSync(join(root, groupDir), { recursive: true })
  const groups: string[] = []
  const grouped = new Set<string>()
  for (const [dir, count] of GROUPED) {
    const files = testFiles(root, join(build, 'test', dir))
    const members = files.filter((file) => !ownsProcess(root, build, file))
    for (let index = 0; index < count; index++) {
      const group = members.filter((_, position) => position % count === index)
      if (group.length === 0) continue
      const file = join(groupDir, `${dir}-${index + 1}.test.js`)
      writeFileSync(join(root, file), groupSource(groupDir, root, group))
      groups.push(file)
      for (const member of group) grouped.add(member)
    }
  }
  const alone = testFiles(root, join(build, 'test')).filter((file) => !grouped.has(file))
  return [...groups, ...alone]
}
