import type { BenchReport, FloodResult, ScenarioSummary } from '../lib/types.js'
import {
  ACCESS_LOG_TARGET,
  comparedScenarios,
  RSA_FRESH_TARGET,
  THROTTLED_ROW,
} from './cpu-targets.js'
import { koaFloorOf } from './summarize.js'
import { ms } from './table.js'
import type { TargetResult } from './targets.js'

function describe(s: ScenarioSummary | undefined): string {
  if (s === undefined) return 'not measured'
  return `${Math.round(s.rps).toLocaleString('en-US')} req/s, ${s.cpuUsPerRequest.toFixed(1)} µs CPU per request, its process busy ${(s.sutCores * 100).toFixed(0)} % of a core`
}

/** Facts from the run that bound a missed target: where the time went, as measured. */
export function limitNote(target: TargetResult, report: BenchReport): string {
  switch (target.id) {
    case 'latency-p50':
    case 'latency-p99': {
      const l = report.latency
      if (l === null) return 'not measured'
      const floor = koaFloorOf(l)
      const koa =
        floor === null
          ? 'the Koa floor was not measured'
          : `through the Koa floor (no logic) ${ms(floor.path.p50Us)}/${ms(floor.path.p99Us)} ms, so Koa's relay by itself added ${ms(floor.addedP50Us)}/${ms(floor.addedP99Us)} ms at the same rate`
      return `Direct p50/p99 ${ms(l.direct.p50Us)}/${ms(l.direct.p99Us)} ms; through the gateway ${ms(l.gateway.p50Us)}/${ms(l.gateway.p99Us)} ms at ${l.rate} req/s; ${koa}.`
    }
    case 'flood': {
      const f = report.flood
      if (f === null) return 'not measured'
      const statuses = Object.entries(f.floodStatuses)
        .map(([status, count]) => `${count} × ${status}`)
        .join(', ')
      return `The flood ran at ${Math.round(f.floodAchievedRps).toLocaleString('en-US')} req/s of the ${f.floodRate.toLocaleString('en-US')} asked (answers: ${statuses || 'none'}); good clients went from ${Math.round(f.aloneRps).toLocaleString('en-US')} to ${Math.round(f.underFloodRps).toLocaleString('en-US')} req/s.${floodCostNote(f, report)}`
    }
    default:
      return comparedScenarios(target.id).length > 0 ? cpuNote(target, report) : memoryNote(report)
  }
}

/** The rows a CPU-per-request target compares, as measured. */
function cpuNote(target: TargetResult, report: BenchReport): string {
  const rows = comparedScenarios(target.id).map((id) => {
    const summary = report.summaries.find((s) => s.scenario === id)
    return `${summary?.label ?? id}: ${describe(summary)}`
  })
  const verify = report.rsaVerify
  if (target.id === ACCESS_LOG_TARGET) rows.push(`rounds of ${report.options.durationS} s`)
  if (target.id === RSA_FRESH_TARGET) {
    rows.push(
      verify == null
        ? 'plain node:crypto RS256 verify: not measured'
        : `plain node:crypto RS256 verify: ${verify.cpuUsPerVerify.toFixed(1)} µs of CPU`,
    )
  }
  return `${rows.join('; ')}.`
}

/** What the memory phase measured beside the value a memory target reads. */
function memoryNote(report: BenchReport): string {
  const m = report.memory.find((result) => result.store === 'postgres')
  if (m === undefined) return 'not measured'
  const start = `RSS ${m.rssBeforeMb.toFixed(1)} MB after start${m.startPeakMb === undefined ? '' : ` (peak ${m.startPeakMb.toFixed(1)} MB during it)`}`
  const cached = `${m.rssAfterMb.toFixed(1)} MB with ${m.accounts.toLocaleString('en-US')} accounts cached (V8 heap ${m.heapUsedMb.toFixed(1)} MB${m.heapPerAccountBytes == null ? '' : `, ${Math.round(m.heapPerAccountBytes)} bytes per account after GC`})`
  const f = m.firstStart
  const first =
    f == null
      ? ''
      : `First start: peak ${f.peakMb.toFixed(1)} MB with the initialising child (gateway ${f.gatewayPeakMb.toFixed(1)} MB, child ${f.childPeakMb.toFixed(1)} MB), ${f.rssMb.toFixed(1)} MB after it. `
  return `${first}${start}; ${cached}.`
}

/**
 * What the flood cost the gateway in place, beside what the closed-loop 429 row costs: the
 * difference is what a request arriving alone costs over one read with others.
 */
export function floodCostNote(f: FloodResult, report: BenchReport): string {
  if (f.goodCpuUs === undefined || f.floodCpuUs === undefined || f.busyUnderFlood === undefined)
    return ''
  const row = report.summaries.find((s) => s.scenario === THROTTLED_ROW)
  const closedLoop =
    row === undefined ? '' : ` (the closed-loop 429 row: ${row.cpuUsPerRequest.toFixed(1)} µs)`
  return ` Under the flood the gateway was busy ${(f.busyUnderFlood * 100).toFixed(0)} % of a core; a good request cost it ${f.goodCpuUs.toFixed(1)} µs of CPU alone, and each flood request ${f.floodCpuUs.toFixed(1)} µs in place${closedLoop}.`
}
