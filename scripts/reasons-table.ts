import { REASONS, reasonStage, type Reason } from '../src/reasons.js'

const BEGIN = '<!-- reasons:begin (generated from src/reasons.ts by `npm run gen`) -->'
const END = '<!-- reasons:end -->'

/**
 * The reason table as markdown, grouped by area (`jwt`, `service_account`, …) in table order, with
 * the step each comes from.
 */
export function renderReasonsTable(): string {
  const rows = (Object.entries(REASONS) as [Reason, string][]).map(
    ([reason, meaning]) =>
      `| \`${reason}\` | ${reasonStage(reason)} | ${meaning.replaceAll('|', '\\|')} |`,
  )
  return ['| Reason | Step | Meaning |', '|---|---|---|', ...rows].join('\n')
}

/** `doc` with the text between the reason markers replaced by the current table. */
export function withReasonsTable(doc: string): string {
  const begin = doc.indexOf(BEGIN)
  const end = doc.indexOf(END)
  if (begin === -1 || end < begin) throw new Error(`docs/metrics.md: no ${BEGIN} … ${END} block`)
  return `${doc.slice(0, begin + BEGIN.length)}\n${renderReasonsTable()}\n${doc.slice(end)}`
}
