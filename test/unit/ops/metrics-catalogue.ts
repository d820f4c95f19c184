import { readFileSync } from 'node:fs'
import { projectPath } from '../../helpers/project-root.js'

export const METRICS_DOC = projectPath('docs/metrics.md')

export interface DocumentedMetric {
  readonly name: string
  readonly type: 'counter' | 'gauge' | 'histogram' | 'summary'
  readonly labels: readonly string[]
  /** Marked "(Linux only)": prom-client collects it on Linux only. */
  readonly linuxOnly: boolean
}

const ROW =
  /^\| `(portcullis_[a-z0-9_]+)` \| (counter|gauge|histogram|summary) \| ([^|]*) \| (.*) \|$/

/** The metric rows of docs/metrics.md: `| \`name\` | type | \`label\`, … or — | meaning |`. */
export function readCatalogue(
  text = readFileSync(METRICS_DOC, 'utf8'),
): Map<string, DocumentedMetric> {
  const catalogue = new Map<string, DocumentedMetric>()
  for (const line of text.split('\n')) {
    const match = ROW.exec(line)
    if (match === null) continue
    const [, name, type, labelCell, meaning] = match as unknown as [
      string,
      string,
      string,
      string,
      string,
    ]
    if (catalogue.has(name)) throw new Error(`${name} is documented twice`)
    const labels = [...labelCell.matchAll(/`([a-z_][a-z0-9_]*)`/g)].map((m) => m[1] as string)
    if (labels.length === 0 && labelCell.trim() !== '—')
      throw new Error(`${name}: the labels cell must list labels in backticks or be —`)
    catalogue.set(name, {
      name,
      type: type as DocumentedMetric['type'],
      labels,
      linuxOnly: meaning.includes('(Linux only)'),
    })
  }
  return catalogue
}

/** Labels Prometheus (or the operator) attaches to every series of a target. */
export const TARGET_LABELS = new Set([
  'job',
  'instance',
  'namespace',
  'pod',
  'service',
  'container',
  'endpoint',
])

/** The series names a metric family exposes: histograms add _bucket, _sum and _count. */
export function seriesNames(metric: DocumentedMetric): string[] {
  if (metric.type === 'histogram')
    return [`${metric.name}_bucket`, `${metric.name}_sum`, `${metric.name}_count`]
  return [metric.name]
}

/** The documented family a series belongs to, with the labels a selector on it may use. */
export function familyOfSeries(
  catalogue: ReadonlyMap<string, DocumentedMetric>,
  series: string,
): { metric: DocumentedMetric; labels: Set<string> } | undefined {
  for (const metric of catalogue.values()) {
    if (!seriesNames(metric).includes(series)) continue
    const labels = new Set([...metric.labels, ...TARGET_LABELS])
    if (series.endsWith('_bucket') && metric.type === 'histogram') labels.add('le')
    return { metric, labels }
  }
  return undefined
}
