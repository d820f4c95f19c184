import { familyOfSeries, TARGET_LABELS, type DocumentedMetric } from './metrics-catalogue.js'
import { readPromql } from './promql.js'

/** Series that are not Portcullis's own but may appear in rules: Prometheus's `up`. */
const EXTERNAL_SERIES = new Set(['up'])

/**
 * What is wrong with the references of one expression: metrics not in docs/metrics.md (or a
 * histogram used without _bucket/_sum/_count), labels a metric does not have. Also returns the
 * documented families it uses.
 */
export function checkPromql(
  expr: string,
  catalogue: ReadonlyMap<string, DocumentedMetric>,
): { problems: string[]; families: Set<string> } {
  const problems: string[] = []
  const families = new Set<string>()
  const known = new Set<string>(TARGET_LABELS)
  const references = readPromql(expr)
  if (references.selectors.length === 0) problems.push('selects no metric')
  for (const selector of references.selectors) {
    if (EXTERNAL_SERIES.has(selector.metric)) {
      for (const label of selector.labels)
        if (!TARGET_LABELS.has(label)) problems.push(`${selector.metric} has no label ${label}`)
      continue
    }
    const family = familyOfSeries(catalogue, selector.metric)
    if (family === undefined) {
      problems.push(`${selector.metric} is not a series of a metric in docs/metrics.md`)
      continue
    }
    families.add(family.metric.name)
    for (const label of family.labels) known.add(label)
    for (const label of selector.labels)
      if (!family.labels.has(label)) problems.push(`${selector.metric} has no label ${label}`)
  }
  for (const label of references.grouping)
    if (!known.has(label)) problems.push(`groups by ${label}, which none of its metrics has`)
  return { problems, families }
}
