/** Pure parsers of /proc files (Linux), so they can be tested on fixed text. */

export interface ProcessTimes {
  /** utime + stime, in clock ticks. */
  readonly ticks: number
  readonly ppid: number
}

/**
 * `/proc/<pid>/stat`: the command name (field 2) may hold spaces and parentheses, so fields are
 * counted from the last `)`. utime and stime are fields 14 and 15, ppid field 4.
 */
export function parseProcessStat(text: string): ProcessTimes | null {
  const close = text.lastIndexOf(')')
  if (close === -1) return null
  const rest = text
    .slice(close + 2)
    .trim()
    .split(/\s+/)
  // rest[0] is field 3 (state).
  const ppid = Number(rest[1])
  const utime = Number(rest[11])
  const stime = Number(rest[12])
  if (![ppid, utime, stime].every(Number.isFinite)) return null
  return { ticks: utime + stime, ppid }
}

export interface SystemTimes {
  /**
   * Ticks processes spent running (user, nice, system). Interrupt and softirq time is left out:
   * it belongs to no process, and on loopback much of it is the benchmark's own network traffic.
   */
  readonly busy: number
  readonly steal: number
  readonly total: number
}

/** The aggregate `cpu` line of `/proc/stat`. */
export function parseSystemStat(text: string): SystemTimes | null {
  const line = text.split('\n').find((candidate) => candidate.startsWith('cpu '))
  if (line === undefined) return null
  const fields = line.trim().split(/\s+/).slice(1).map(Number)
  const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] =
    fields
  return {
    busy: user + nice + system,
    steal,
    total: user + nice + system + idle + iowait + irq + softirq + steal,
  }
}

/** The three load averages of `/proc/loadavg`. */
export function parseLoadAverage(text: string): [number, number, number] {
  const [one = Number.NaN, five = Number.NaN, fifteen = Number.NaN] = text
    .trim()
    .split(/\s+/)
    .slice(0, 3)
    .map(Number)
  return [one, five, fifteen]
}

/** `VmRSS` or `VmHWM` of `/proc/<pid>/status`, in bytes; NaN when absent. */
export function parseStatusKb(text: string, field: 'VmRSS' | 'VmHWM'): number {
  const match = new RegExp(`^${field}:\\s+(\\d+)\\s+kB`, 'm').exec(text)
  return match?.[1] === undefined ? Number.NaN : Number(match[1]) * 1024
}

/** The value of an unlabelled sample in Prometheus text format; NaN when absent. */
export function metricValue(text: string, name: string): number {
  for (const line of text.split('\n')) {
    if (line.startsWith(`${name} `))
      return Number(
        line
          .slice(name.length + 1)
          .trim()
          .split(' ')[0],
      )
  }
  return Number.NaN
}
