/**
 * The full run's test processes. Every test process pays tap's and the coverage loader's start-up
 * (about 1.4 s of CPU on 2 cores, measured: 30 small unit files took 63 s of CPU as 30 processes
 * and 26 s as one), so the unit test files run together, a few to a process; every other file,
 * and a unit file that says it needs one, runs in a process of its own. A file needs its own
 * process when it holds something big until the process ends (an embedded store) or measures the
 * process (its memory): its source says so with `OWN_PROCESS_MARK`.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'

/** A comment line in a unit test file's source that keeps it out of the groups. */
export const OWN_PROCESS_MARK = 'Runs in a test process of its own:'

/** Side by side the groups keep both cores busy, and each stays far from its timeout. */
const GROUPS = 4
/** A group's budget: the sum of its files', each of which must stay far below tap's 120 s. */
const GROUP_TIMEOUT_MS = 480_000

/** Every compiled test file under `dir`, relative to `root`, sorted. */
function testFiles(root: string, dir: string): string[] {
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
 * One group file: imports its members one after another, and waits for each one's tests to end
 * before the next is loaded (an empty subtest queued behind them), so that no file's top-level
 * code runs while another's tests do.
 */
function groupSource(groupDir: string, root: string, members: readonly string[]): string {
  const lines = ["import t from 'tap'", `t.setTimeout(${GROUP_TIMEOUT_MS})`]
  for (const member of members) {
    const path = relative(join(root, groupDir), join(root, member))
    lines.push(`await import(${JSON.stringify(path)})`)
    lines.push(`await t.test(${JSON.stringify(`end of ${member}`)}, async () => {})`)
  }
  return `${lines.join('\n')}\n`
}

/**
 * The test files of the full run, relative to `root`: the unit groups (written into
 * `<build>/groups`), then every other file.
 */
export function fullRunFiles(root: string, build: string): string[] {
  const groupDir = join(build, 'groups')
  rmSync(join(root, groupDir), { recursive: true, force: true })
  mkdirSync(join(root, groupDir), { recursive: true })
  const unitDir = join(build, 'test', 'unit')
  const grouped = testFiles(root, unitDir).filter((file) => !ownsProcess(root, build, file))
  const groups: string[] = []
  for (let index = 0; index < GROUPS; index++) {
    const members = grouped.filter((_, position) => position % GROUPS === index)
    if (members.length === 0) continue
    const file = join(groupDir, `unit-${index + 1}.test.js`)
    writeFileSync(join(root, file), groupSource(groupDir, root, members))
    groups.push(file)
  }
  const alone = testFiles(root, join(build, 'test')).filter((file) => !grouped.includes(file))
  return [...groups, ...alone]
}
