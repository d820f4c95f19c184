/** The instructions phase in the terminal summary and docs/benchmarks.md. Pure. */
import type { BenchReport, InstructionResult } from '../lib/types.js'
import { INSTRUCTION_CONCURRENCY } from '../scenarios/instructions.js'
import { markdownTable, textTable, type Row } from './table.js'

export const INSTRUCTIONS_TITLE = 'Instructions per request (callgrind)'

const FLOOR = 'koa-floor'

const grouped = (n: number): string => n.toLocaleString('en-US')

/** One row per system: the lowest window, every window, and the ratio to the Koa floor. */
export function instructionRows(results: readonly InstructionResult[]): Row[] {
  const floor = results.find((r) => r.scenario === FLOOR)
  return results.map((r) => [
    r.label,
    grouped(r.perRequest),
    r.windows.map(grouped).join(', '),
    floor === undefined ? '—' : `${(r.perRequest / floor.perRequest).toFixed(2)} ×`,
  ])
}

/** The instructions table, or nothing when the run (or an older report) did not count them. */
export function instructionsSection(
  results: readonly InstructionResult[] | undefined,
  markdown: boolean,
): string[] {
  if (results === undefined || results.length === 0) return []
  const header: Row = ['system', 'instructions/request', 'windows', '× Koa floor']
  const rows = instructionRows(results)
  return [
    markdown ? `### ${INSTRUCTIONS_TITLE}` : `${INSTRUCTIONS_TITLE}:`,
    ...(markdown ? [''] : []),
    markdown ? markdownTable(header, rows, [0, 2]) : textTable(header, rows),
    '',
  ]
}

/** The Method section's line on the instructions phase, when the run counted them. */
export function instructionsMethod(report: BenchReport): string[] {
  const first = report.instructions?.[0]
  if (first === undefined) return []
  return [
    `- Instructions (informational, no target of their own): the Koa floor, Portcullis's excluded route, Portcullis with a warm service-account token, the 401 each answers itself (the Koa floor's set on the response, Portcullis's to a request without a credential) and Portcullis's 429 to a throttled address (one unknown \`svc_pat_\` token, counted once its 401s have filled the address's throttle), each in a new process of its own under valgrind's callgrind (\`--instr-atstart=no\`, node \`--single-threaded\` so that V8's compiler and collector threads do not count with the requests), in front of an upstream in the harness; ${grouped(first.warmup)} requests of warm-up (${INSTRUCTION_CONCURRENCY} at a time from an undici pool in the harness), then ${first.windows.length} windows of ${grouped(first.windowRequests)} requests, each counted on its own (\`callgrind_control --instr=on\`, the requests, \`--instr=off\`, \`--dump\`). The figure is the lowest window's: a window in which a major collection or a compilation ran counts more. Every user-space instruction of the process counts, Node's and V8's included; the host's other work hardly moves the count, as it moves CPU time. Skipped, with a note, where valgrind is not installed.`,
  ]
}
