/** Summarises a profile of V8's sampling heap profiler (CDP HeapProfiler.stopSampling). Pure. */
import { basename } from 'node:path'
import type { AllocationSite } from './types.js'

export interface SamplingHeapProfileNode {
  readonly callFrame: {
    readonly functionName: string
    readonly url: string
    readonly lineNumber: number
  }
  /** Bytes allocated by this frame itself, as V8 estimates them from its samples. */
  readonly selfSize: number
  readonly children?: readonly SamplingHeapProfileNode[]
}

export interface SamplingHeapProfile {
  readonly head: SamplingHeapProfileNode
}

/** Bytes allocated at one site (same function name and location merged). */
export interface SampledSite {
  readonly functionName: string
  readonly where: string
  readonly bytes: number
}

export interface HeapProfileSummary {
  /** The sum of every node's selfSize. */
  readonly totalBytes: number
  /** The sites that allocated most, largest first. */
  readonly sites: readonly SampledSite[]
}

/** `file.js:line` (1-based) of a call frame; `(native)` for frames without a script. */
function whereOf(frame: SamplingHeapProfileNode['callFrame']): string {
  if (frame.url === '') return '(native)'
  return `${basename(frame.url)}:${frame.lineNumber + 1}`
}

/** Every node's selfSize summed, and by site: the `limit` sites that allocated most. */
export function summarizeHeapProfile(
  profile: SamplingHeapProfile,
  limit = Number.POSITIVE_INFINITY,
): HeapProfileSummary {
  const sites = new Map<string, { functionName: string; where: string; bytes: number }>()
  let totalBytes = 0
  // Iterative: a deep stack must not overflow the harness's.
  const pending: SamplingHeapProfileNode[] = [profile.head]
  for (let node = pending.pop(); node !== undefined; node = pending.pop()) {
    pending.push(...(node.children ?? []))
    if (node.selfSize === 0) continue
    totalBytes += node.selfSize
    const functionName = node.callFrame.functionName || '(anonymous)'
    const where = whereOf(node.callFrame)
    const key = `${functionName}@${where}`
    const site = sites.get(key) ?? { functionName, where, bytes: 0 }
    site.bytes += node.selfSize
    sites.set(key, site)
  }
  const largest = [...sites.values()].sort(
    (a, b) => b.bytes - a.bytes || a.where.localeCompare(b.where),
  )
  return { totalBytes, sites: largest.slice(0, limit) }
}

/** Bytes per request; an error when no request was counted (nothing to divide by). */
export function perRequest(bytes: number, requests: number): number {
  if (!(requests > 0)) throw new Error(`no request was counted while sampling (${requests})`)
  return bytes / requests
}

/** The summary's sites as the report keeps them: bytes per request. */
export function sitesPerRequest(summary: HeapProfileSummary, requests: number): AllocationSite[] {
  return summary.sites.map((site) => ({
    functionName: site.functionName,
    where: site.where,
    bytesPerRequest: perRequest(site.bytes, requests),
  }))
}
