/** Counting a process's instructions with valgrind's callgrind, switched on and off from outside. */
import { execFile, spawnSync } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'

const run = promisify(execFile)

/** Whether valgrind and callgrind_control can be run here (neither ships with Node). */
export function callgrindAvailable(): boolean {
  const ok = (command: string) =>
    spawnSync(command, ['--version'], { stdio: 'ignore' }).status === 0
  return ok('valgrind') && ok('callgrind_control')
}

/**
 * valgrind's options for a process counted in windows: nothing is counted until `countWindow`
 * switches counting on, and each window is dumped to a file of its own in `dir`.
 */
export function callgrindWrapper(dir: string, name: string): string[] {
  return [
    'valgrind',
    '--tool=callgrind',
    '--instr-atstart=no',
    '--dump-line=no',
    `--callgrind-out-file=${join(dir, `${name}.callgrind.%p`)}`,
  ]
}

/** The instructions a callgrind dump counted (its `totals:` line); 0 when it counted none. */
export function callgrindTotal(text: string): number {
  const match = /^totals: (\d+)/m.exec(text)
  return match === null ? 0 : Number(match[1])
}

/**
 * Counts what `pid` executes while `work` runs: counting switched on, the work, counting off, a
 * dump of the window. Returns the window's instructions.
 */
export async function countWindow(
  dir: string,
  name: string,
  pid: number,
  work: () => Promise<void>,
): Promise<number> {
  const before = new Set(dumps(dir, name, pid))
  await run('callgrind_control', ['--instr=on', String(pid)])
  await work()
  await run('callgrind_control', ['--instr=off', String(pid)])
  await run('callgrind_control', ['--dump', String(pid)])
  const added = dumps(dir, name, pid).filter((file) => !before.has(file))
  if (added.length !== 1)
    throw new Error(`expected one callgrind dump of ${name}, found ${added.length}`)
  return callgrindTotal(readFileSync(join(dir, added[0] as string), 'utf8'))
}

/** The numbered dumps of a counted process (`<name>.callgrind.<pid>.<n>`). */
function dumps(dir: string, name: string, pid: number): string[] {
  const prefix = `${name}.callgrind.${pid}.`
  return readdirSync(dir).filter((file) => file.startsWith(prefix))
}
