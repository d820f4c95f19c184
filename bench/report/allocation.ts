/** The allocation phase in the terminal summary and docs/benchmarks.md. Pure. */
import type { AllocationResult, AllocationSite, BenchReport } from '../lib/types.js'
import {
  ALLOCATION_SAMPLE_S,
  ALLOCATION_WARMUP_S,
  SAMPLING_INTERVAL,
} from '../scenarios/allocation.js'
import { EXCLUDED_PATH } from '../scenarios/catalog.js'
import { markdownTable, textTable, type Row } from './table.js'

export const ALLOCATION_TITLE = 'Allocated per request (sampled, collected objects included)'

const KB = 1024
const FLOOR = 'koa-floor'
const EXCLUDED = 'pc-excluded'

/** One row per system: KB a request, and the ratio to the Koa floor measured in the same run. */
export function allocationRows(results: readonly AllocationResult[]): Row[] {
  const floor = results.find((r) => r.scenario === FLOOR)
  return results.map((r) => [
    r.label,
    (r.bytesPerRequest / KB).toFixed(2),
    floor === undefined ? '—' : `${(r.bytesPerRequest / floor.bytesPerRequest).toFixed(2)} ×`,
  ])
}

const site = (s: AllocationSite | undefined): string[] =>
  s === undefined
    ? ['', '']
    : [`${s.functionName} (${s.where})`, Math.round(s.bytesPerRequest).toString()]

/** The top sites of the gateway's excluded route beside the Koa floor's, rank by rank. */
export function siteRows(results: readonly AllocationResult[]): Row[] {
  const excluded = results.find((r) => r.scenario === EXCLUDED)?.topSites ?? []
  const floor = results.find((r) => r.scenario === FLOOR)?.topSites ?? []
  return Array.from({ length: Math.max(excluded.length, floor.length) }, (_, index) => [
    String(index + 1),
    ...site(excluded[index]),
    ...site(floor[index]),
  ])
}

/** The allocation tables, or nothing when the run (or an older report) did not measure them. */
export function allocationSection(
  results: readonly AllocationResult[] | undefined,
  markdown: boolean,
): string[] {
  if (results === undefined || results.length === 0) return []
  const table = (header: Row, rows: readonly Row[], left: number | readonly number[]) =>
    markdown ? markdownTable(header, rows, left) : textTable(header, rows)
  const failed = results.filter((r) => r.failures > 0)
  const lines = [
    markdown ? `### ${ALLOCATION_TITLE}` : `${ALLOCATION_TITLE}:`,
    ...(markdown ? [''] : []),
    table(['system', 'KB/request', '× Koa floor'], allocationRows(results), 1),
    '',
    ...failed.map(
      (r) => `${r.label}: ${r.failures} answers with another status than 200 or socket errors.`,
    ),
    ...(failed.length > 0 ? [''] : []),
  ]
  const sites = siteRows(results)
  if (sites.length > 0) {
    lines.push(
      markdown
        ? 'Where they allocate most (bytes a request, by function and its file:line):'
        : 'Top allocation sites (bytes/request):',
      ...(markdown ? [''] : []),
      table(
        ['#', `excluded route (${EXCLUDED_PATH})`, 'B/req', 'Koa floor', 'B/req'],
        sites,
        [1, 3],
      ),
      '',
    )
  }
  return lines
}

/** The Method section's line on the allocation phase, when the run measured it. */
export function allocationMethod(report: BenchReport): string[] {
  if (report.allocation === undefined || report.allocation.length === 0) return []
  return [
    `- Allocation (informational, no target): the Koa floor, Portcullis's excluded route and Portcullis with a warm service-account token, each in a new process of its own on the system-under-test CPU, in front of an upstream in the harness that counts its answers; autocannon with ${report.options.connections} connections for ${ALLOCATION_WARMUP_S} s of warm-up, then V8's sampling heap profiler (\`HeapProfiler.startSampling\` through the inspector, a sample every ${SAMPLING_INTERVAL} bytes on average, objects already collected by minor and major GCs included) for ${ALLOCATION_SAMPLE_S} s under the same load: the bytes it estimates were allocated (every node's self size) over the requests the upstream answered meanwhile. Unlike CPU time, other work on the machine hardly changes it (the access log's share moves a little with the request rate).`,
  ]
}
