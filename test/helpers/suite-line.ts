import { isAgentOsLine, type AgentOsLine } from '../../src/policy/catalogue/index.js'
import { LINES } from '../../demo/runtime/lines.js'

/**
 * The AgentOS line the suites run against: the demo runtimes they start speak it, and every
 * gateway they start pins it unless a test chooses (in its upstream section, or by
 * PORTCULLIS_AGENTOS_VERSION): their upstreams include servers that are no AgentOS (closed ports,
 * blackholes, plain node:http servers, whatever listens on the default address), which `auto`
 * would refuse or wait for. 2.9 unless `PORTCULLIS_TEST_AGENTOS` names another line.
 */
export const SUITE_AGENTOS_LINE: AgentOsLine = suiteLine(process.env.PORTCULLIS_TEST_AGENTOS)

function suiteLine(requested: string | undefined): AgentOsLine {
  if (requested === undefined || requested === '') return '2.9'
  if (!isAgentOsLine(requested)) {
    throw new Error(`PORTCULLIS_TEST_AGENTOS=${requested}: not an AgentOS line`)
  }
  return requested
}

/**
 * The expectation of a test for the suite's line, where the two lines answer differently (a route
 * one of them removed, a version it reports). Every line is named, so a new line fails to compile
 * until each such expectation says what it answers.
 */
export function onSuiteLine<T>(expectations: Readonly<Record<AgentOsLine, T>>): T {
  return expectations[SUITE_AGENTOS_LINE]
}

/** What the demo runtime reports of itself on the suite's line (`/info`'s versions). */
export const SUITE_RUNTIME_VERSIONS = LINES[SUITE_AGENTOS_LINE]

/**
 * How `/readyz` and the start-up line begin when a gateway runs pinned to the suite's line
 * (`3.0 (pinned`), followed by `more`, the source of a regular expression (`; upstream `).
 */
export function pinnedLine(more = ''): RegExp {
  return new RegExp(`^${SUITE_AGENTOS_LINE.replace('.', '\\.')} \\(pinned${more}`)
}
