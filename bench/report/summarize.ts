import { addCounts, median, ratio } from '../lib/stats.js'
import type { Sample, ScenarioSummary } from '../lib/types.js'

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
