import { addCounts, median, ratio } from '../lib/stats.js'
import type { LatencyPath, LatencyResult, Sample, ScenarioSummary } from '../lib/types.js'

/** Medians over each scenario's rounds, in the order given, with the ratio to nginx. */
export function summarize(
  samples: readonly Sample[],
  order: readonly { id: string; label: string; expectStatus?: number }[],
): ScenarioSummary[] {
  const byScenario = new Map<string, Sample[]>()
  for (const sample of samples) {
    const list = byScenario.get(sample.scenario) ?? []
    list.push(sample)
    byScenario.set(sample.scenario, list)
  }
  const nginx = byScenario.get('nginx')
  const nginxRps = nginx === undefined ? null : median(nginx.map((s) => s.rps))
  const summaries: ScenarioSummary[] = []
  for (const { id, label, expectStatus } of order) {
    const list = byScenario.get(id)
    if (list === undefined || list.length === 0) continue
    const rps = median(list.map((s) => s.rps))
    summaries.push({
      scenario: id,
      label,
      rounds: list.length,
      rps,
      p50Us: median(list.map((s) => s.load.p50Us)),
      p99Us: median(list.map((s) => s.load.p99Us)),
      cpuUsPerRequest: median(list.map((s) => s.cpuUsPerRequest)),
      unexpected: list.reduce((sum, s) => sum + s.load.unexpected, 0),
      errors: list.reduce((sum, s) => sum + s.load.errors, 0),
      foreignCores: median(list.map((s) => s.disturbance.foreignCores)),
      sutCores: median(list.map((s) => s.cpu.sutS / s.cpu.wallS)),
      generatorCores: median(list.map((s) => s.cpu.generatorS / s.cpu.wallS)),
      vsNginx: ratio(rps, nginxRps),
      ...(expectStatus === undefined || expectStatus === 200 ? {} : { expectStatus }),
      ...statusesOf(list),
    })
  }
  return summaries
}

/** Answers per status summed over the rounds, when the generator counted them. */
function statusesOf(list: readonly Sample[]): { statuses?: Record<string, number> } {
  const counted = list.flatMap((s) => (s.load.statuses === undefined ? [] : [s.load.statuses]))
  if (counted.length === 0) return {}
  return { statuses: counted.reduce<Record<string, number>>(addCounts, {}) }
}

/** Rounds whose measurement shared the machine with more than `threshold` cores of others. */
export function disturbedSamples(samples: readonly Sample[], threshold = 0.1): Sample[] {
  return samples.filter((sample) => sample.disturbance.foreignCores > threshold)
}

/** The latency phase's rounds, path by path: p50 and p99 of each round, its requests. */
export interface LatencyRounds {
  readonly direct: readonly LatencyPath[]
  /** Empty when the Koa floor did not run. */
  readonly koaFloor: readonly LatencyPath[]
  readonly gateway: readonly LatencyPath[]
}

/** Medians over the latency rounds, and what each path added to direct. */
export function summarizeLatency(
  rate: number,
  rounds: LatencyRounds,
  foreignCores: readonly number[],
): LatencyResult {
  const direct = medianPath(rounds.direct)
  const gateway = medianPath(rounds.gateway)
  const koaFloor = rounds.koaFloor.length === 0 ? null : medianPath(rounds.koaFloor)
  return {
    rate,
    direct,
    gateway,
    addedP50Us: gateway.p50Us - direct.p50Us,
    addedP99Us: gateway.p99Us - direct.p99Us,
    ...(koaFloor === null
      ? {}
      : {
          koaFloor,
          koaFloorAddedP50Us: koaFloor.p50Us - direct.p50Us,
          koaFloorAddedP99Us: koaFloor.p99Us - direct.p99Us,
        }),
    foreignCores: median(foreignCores),
  }
}

/** The Koa floor's path and what it added, when the run measured it (older reports did not). */
export function koaFloorOf(
  l: LatencyResult,
): { readonly path: LatencyPath; readonly addedP50Us: number; readonly addedP99Us: number } | null {
  if (
    l.koaFloor === undefined ||
    l.koaFloorAddedP50Us === undefined ||
    l.koaFloorAddedP99Us === undefined
  ) {
    return null
  }
  return { path: l.koaFloor, addedP50Us: l.koaFloorAddedP50Us, addedP99Us: l.koaFloorAddedP99Us }
}

function medianPath(rounds: readonly LatencyPath[]): LatencyPath {
  return {
    p50Us: median(rounds.map((round) => round.p50Us)),
    p99Us: median(rounds.map((round) => round.p99Us)),
    requests: rounds.reduce((sum, round) => sum + round.requests, 0),
  }
}
