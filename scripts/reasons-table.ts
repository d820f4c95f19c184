import { RESPONSES } from '../src/errors.js'
import { REASONS, reasonStage, type Reason } from '../src/reasons.js'

const BEGIN = '<!-- reasons:begin (generated from src/reasons.ts by `npm run gen`) -->'
const END = '<!-- reasons:end -->'

/**
 * The reason table as markdown, grouped by area (`jwt`, `service_account`, …) in table order, with
 * the step each comes from and the error code (and status) it is answered with.
 */
export function renderReasonsTable(): string {
  const rows = (Object.keys(REASONS) as Reason[]).map((reason) => {
    const [code, meaning] = REASONS[reason]
    const answer = code === null ? '—' : `\`${code}\` (${RESPONSES[code].status})`
    return `| \`${reason}\` | ${reasonStage(reason)} | ${answer} | ${meaning.replaceAll('|', '\\|')} |`
  })
  return ['| Reason | Step | Answered with | Meaning |', '|---|---|---|---|', ...rows].join('\n')
}

/** `doc` with the text between the reason markers replaced by the current table. */
export function withReasonsTable(doc: string): string {
  const begin = doc.indexOf(BEGIN)
  const end = doc.indexOf(END)
  if (begin === -1 || end < begin) throw new Error(`docs/metrics.md: no ${BEGIN} … ${END} block`)
  return `${doc.slice(0, begin + BEGIN.length)}\n${renderReasonsTable()}\n${doc.slice(end)}`
}
