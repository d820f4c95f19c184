import { readFileSync, readdirSync } from 'node:fs'
import {
  parseLoadAverage,
  parseProcessStat,
  parseStatusKb,
  parseSystemStat,
  type SystemTimes,
} from './proc-parse.js'

/** Clock ticks per second of /proc times (USER_HZ); 100 on every Linux this runs on. */
export const TICKS_PER_SECOND = 100

function read(path: string): string | null {
  try {
    return readFileSync(path, 'utf8')
  } catch {
    return null
  }
}

/** utime + stime of one process (all its threads), in ticks; 0 when it is gone. */
export function processTicks(pid: number): number {
  const text = read(`/proc/${pid}/stat`)
  return text === null ? 0 : (parseProcessStat(text)?.ticks ?? 0)
}

/** The process and all its descendants, found through the ppid of every process. */
export function processTree(root: number): number[] {
  const children = new Map<number, number[]>()
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry)
    if (!Number.isInteger(pid)) continue
    const text = read(`/proc/${pid}/stat`)
    const parsed = text === null ? null : parseProcessStat(text)
    if (parsed === null) continue
    const list = children.get(parsed.ppid) ?? []
    list.push(pid)
    children.set(parsed.ppid, list)
  }
  const tree: number[] = []
  const queue = [root]
  while (queue.length > 0) {
    const pid = queue.shift() as number
    tree.push(pid)
    queue.push(...(children.get(pid) ?? []))
  }
  return tree
}

/** Total ticks of a set of process trees, looked up now (so newly forked children count). */
export function treeTicks(roots: readonly number[]): number {
  let total = 0
  for (const root of roots) for (const pid of processTree(root)) total += processTicks(pid)
  return total
}

export function systemTimes(): SystemTimes {
  const parsed = parseSystemStat(read('/proc/stat') ?? '')
  if (parsed === null) throw new Error('cannot read /proc/stat')
  return parsed
}

export function loadAverage(): [number, number, number] {
  return parseLoadAverage(read('/proc/loadavg') ?? '')
}

/** Resident set size in bytes (NaN when the process is gone). */
export function rssBytes(pid: number): number {
  return parseStatusKb(read(`/proc/${pid}/status`) ?? '', 'VmRSS')
}

export function peakRssBytes(pid: number): number {
  return parseStatusKb(read(`/proc/${pid}/status`) ?? '', 'VmHWM')
}

/** Pids whose command line contains every one of `parts` as a whole argument. */
export function pidsWithArguments(parts: readonly string[]): number[] {
  const found: number[] = []
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry)
    if (!Number.isInteger(pid)) continue
    const args = (read(`/proc/${pid}/cmdline`) ?? '').split('\0')
    if (parts.every((part) => args.includes(part))) found.push(pid)
  }
  return found
}
