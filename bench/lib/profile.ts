/** Summarises a V8 .cpuprofile (node --cpu-prof) by self time. Pure. */

interface ProfileNode {
  readonly id: number
  readonly callFrame: {
    readonly functionName: string
    readonly url: string
    readonly lineNumber: number
  }
  readonly hitCount?: number
}

export interface CpuProfile {
  readonly nodes: readonly ProfileNode[]
  readonly startTime: number
  readonly endTime: number
  readonly samples?: readonly number[]
}

export interface SelfTime {
  readonly name: string
  readonly where: string
  /** The script's full URL ('' for native code). */
  readonly url?: string
  readonly percent: number
}

function shortUrl(url: string): string {
  if (url === '') return '(native)'
  const modules = url.lastIndexOf('/node_modules/')
  if (modules !== -1 && !url.startsWith('.cache/', modules + 14)) return url.slice(modules + 1)
  const dist = url.lastIndexOf('/dist/')
  if (dist !== -1) return url.slice(dist + 1)
  return url
}

/**
 * Self time per function (same name and location merged), as a share of the profiled samples,
 * leaving out the idle and program-less samples. Largest first.
 */
export function topSelfTime(profile: CpuProfile, limit = 25): SelfTime[] {
  const hits = new Map<number, number>()
  if (profile.samples !== undefined) {
    for (const id of profile.samples) hits.set(id, (hits.get(id) ?? 0) + 1)
  } else {
    for (const node of profile.nodes) hits.set(node.id, node.hitCount ?? 0)
  }
  const merged = new Map<string, { name: string; where: string; url: string; count: number }>()
  let total = 0
  for (const node of profile.nodes) {
    const count = hits.get(node.id) ?? 0
    const name = node.callFrame.functionName || '(anonymous)'
    if (count === 0 || name === '(idle)') continue
    total += count
    const where = `${shortUrl(node.callFrame.url)}:${node.callFrame.lineNumber + 1}`
    const key = `${name}@${where}`
    const entry = merged.get(key) ?? { name, where, url: node.callFrame.url, count: 0 }
    entry.count += count
    merged.set(key, entry)
  }
  return [...merged.values()]
    .sort((a, b) => b.count - a.count)
    .slice(0, limit)
    .map((entry) => ({
      name: entry.name,
      where: entry.where,
      url: entry.url,
      percent: (entry.count * 100) / total,
    }))
}

/** Where a function lives, coarsely: an npm package, a gateway source folder, or Node itself. */
export function packageOf(url: string, name: string): string {
  if (url === '') return name.startsWith('(') ? name : '(native)'
  const modules = url.lastIndexOf('/node_modules/')
  // A gateway built by --ref lives in node_modules/.cache: it is the gateway, not a package.
  if (modules !== -1 && !url.startsWith('.cache/', modules + 14)) {
    const [first = '', second = ''] = url.slice(modules + 14).split('/')
    return first.startsWith('@') ? `${first}/${second}` : first
  }
  const dist = url.lastIndexOf('/dist/')
  if (dist !== -1) {
    const parts = url.slice(dist + 6).split('/')
    return `portcullis ${parts.length > 1 ? `${parts[0]}/` : parts[0]}`
  }
  if (url.startsWith('node:')) return `node ${url.slice(5).split('/').slice(0, 2).join('/')}`
  return url.startsWith('wasm:') ? 'wasm (undici llhttp, PGlite)' : url
}

/** Self time grouped by packageOf, largest first, as shares of the busy samples. */
export function selfTimeByPackage(profile: CpuProfile, limit = 15): SelfTime[] {
  const all = topSelfTime(profile, Number.POSITIVE_INFINITY)
  const groups = new Map<string, number>()
  for (const entry of all) {
    const group = packageOf(entry.url ?? '', entry.name)
    groups.set(group, (groups.get(group) ?? 0) + entry.percent)
  }
  return [...groups.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, limit)
    .map(([name, percent]) => ({ name, where: '', percent }))
}
