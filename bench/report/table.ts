import type { ScenarioSummary, SkippedScenario } from '../lib/types.js'
import type { TargetResult } from './targets.js'

export type Row = readonly string[]

const THROUGHPUT_HEADER: Row = [
  'scenario',
  'req/s',
  '× nginx',
  'p50 ms',
  'p99 ms',
  'CPU µs/req',
  'SUT busy',
  'unexpected',
  'others (cores)',
]

/** Microseconds as milliseconds, three decimals. */
export const ms = (us: number): string => (us / 1000).toFixed(3)

function fixed(value: number | null, digits: number): string {
  return value === null || !Number.isFinite(value) ? '—' : value.toFixed(digits)
}

/** One row per scenario, medians over rounds. */
export function throughputRows(summaries: readonly ScenarioSummary[]): Row[] {
  return summaries.map((s) => [
    s.label,
    Math.round(s.rps).toLocaleString('en-US'),
    fixed(s.vsNginx, 2),
    fixed(s.p50Us / 1000, 2),
    fixed(s.p99Us / 1000, 2),
    fixed(s.cpuUsPerRequest, 1),
    `${fixed(s.sutCores * 100, 0)} %`,
    String(s.unexpected + s.errors),
    fixed(s.foreignCores, 2),
  ])
}

export function targetRows(targets: readonly TargetResult[]): Row[] {
  return targets.map((t) => [t.source, t.description, t.required, t.shown, t.status])
}

/** Fixed-width text table for the terminal; numbers right-aligned. */
export function textTable(header: Row, rows: readonly Row[]): string {
  const widths = header.map((cell, column) =>
    Math.max(cell.length, ...rows.map((row) => (row[column] ?? '').length)),
  )
  const numeric = (text: string) => /^[-—\d.,]+( ×| %)?$/.test(text)
  const line = (row: Row) =>
    row
      .map((cell, column) => {
        const width = widths[column] ?? 0
        return column > 0 && numeric(cell) ? cell.padStart(width) : cell.padEnd(width)
      })
      .join('  ')
      .trimEnd()
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n')
}

/**
 * GitHub-flavoured Markdown table; `|` inside cells escaped; the first `leftColumns` left-aligned
 * (or those whose indexes it lists), the others right-aligned.
 */
export function markdownTable(
  header: Row,
  rows: readonly Row[],
  leftColumns: number | readonly number[] = 1,
): string {
  const escape = (cell: string) => cell.replace(/\|/g, '\\|')
  const line = (row: Row) => `| ${row.map(escape).join(' | ')} |`
  const left = (column: number) =>
    typeof leftColumns === 'number' ? column < leftColumns : leftColumns.includes(column)
  const align = header.map((_, column) => (left(column) ? '---' : '---:'))
  return [line(header), `|${align.join('|')}|`, ...rows.map(line)].join('\n')
}

export const TARGET_HEADER: Row = ['issue', 'target', 'required', 'measured', 'result']

export function throughputTable(summaries: readonly ScenarioSummary[], markdown = false): string {
  const rows = throughputRows(summaries)
  return markdown ? markdownTable(THROUGHPUT_HEADER, rows) : textTable(THROUGHPUT_HEADER, rows)
}

export function skippedLines(skipped: readonly SkippedScenario[]): string[] {
  return skipped.map((s) => `${s.scenario}: skipped — ${s.reason}`)
}
