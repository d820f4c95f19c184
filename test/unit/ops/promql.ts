/**
 * Just enough PromQL reading to check references: which metric names an expression selects,
 * with which label matchers, and which labels it groups by. Strings, durations and Grafana
 * variables are skipped; every other bare identifier that is not a function or keyword is a
 * metric name.
 */

export interface Selector {
  readonly metric: string
  readonly labels: readonly string[]
}

export interface PromqlReferences {
  readonly selectors: readonly Selector[]
  /** Labels in by (…), without (…), on (…), ignoring (…), group_left/right (…). */
  readonly grouping: readonly string[]
}

const FUNCTIONS = new Set([
  'abs',
  'absent',
  'absent_over_time',
  'avg',
  'avg_over_time',
  'ceil',
  'clamp_min',
  'clamp_max',
  'count',
  'count_over_time',
  'delta',
  'deriv',
  'floor',
  'histogram_quantile',
  'increase',
  'irate',
  'label_values',
  'max',
  'max_over_time',
  'min',
  'min_over_time',
  'quantile',
  'rate',
  'round',
  'scalar',
  'sort_desc',
  'sum',
  'sum_over_time',
  'time',
  'topk',
  'bottomk',
  'vector',
])
const KEYWORDS = new Set([
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'and',
  'or',
  'unless',
  'bool',
  'offset',
])
const GROUPING = /\b(by|without|on|ignoring|group_left|group_right)\s*\(([^)]*)\)/g

export function readPromql(expr: string): PromqlReferences {
  const grouping: string[] = []
  // Strings first (label values, regexes), keeping their quotes' places.
  let text = expr.replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'/g, '""')
  text = text.replace(GROUPING, (_, _keyword: string, labels: string) => {
    grouping.push(
      ...labels
        .split(',')
        .map((label) => label.trim())
        .filter((label) => label !== ''),
    )
    return ' '
  })
  // Grafana's label_values(selector, label): the label is a reference like a grouping label.
  text = text.replace(
    /label_values\(([^,]*),\s*([a-zA-Z_][a-zA-Z0-9_]*)\s*\)/g,
    (_, selector: string, label: string) => {
      grouping.push(label)
      return selector
    },
  )
  text = text.replace(/\[[^\]]*\]/g, ' ') // range selectors and subqueries: [5m], [$__rate_interval]
  text = text.replace(/\boffset\s+\S+/g, ' ')
  const selectors: Selector[] = []
  const withMatchers = /([a-zA-Z_:][a-zA-Z0-9_:]*)?\s*\{([^}]*)\}/g
  text = text.replace(withMatchers, (_, metric: string | undefined, body: string) => {
    const labels = [...body.matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)\s*(?:=~|!~|!=|=)/g)].map(
      (m) => m[1] as string,
    )
    if (metric === undefined) throw new Error(`a selector without a metric name in ${expr}`)
    if (FUNCTIONS.has(metric) || KEYWORDS.has(metric))
      throw new Error(`braces after ${metric} in ${expr}`)
    selectors.push({ metric, labels })
    return ' '
  })
  for (const match of text.matchAll(/\$\{?[a-zA-Z_]+\}?|[a-zA-Z_:][a-zA-Z0-9_:]*\s*\(?/g)) {
    const token = match[0]
    if (token.startsWith('$')) continue
    const name = token.replace(/[\s(]+$/, '')
    if (token.endsWith('(')) {
      if (!FUNCTIONS.has(name)) throw new Error(`unknown PromQL function ${name} in ${expr}`)
      continue
    }
    if (KEYWORDS.has(name) || /^(e|inf|nan)$/i.test(name)) continue
    if (/^\d/.test(name)) continue
    selectors.push({ metric: name, labels: [] })
  }
  return { selectors, grouping }
}
