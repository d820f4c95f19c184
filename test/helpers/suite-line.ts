import { isAgentOsLine, type AgentOsLine } from '../../src/policy/catalogue/index.js'

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
