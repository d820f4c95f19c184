import type { AgentOsCatalogue } from './agentos-catalogue.js'
import type { AgentOsLine } from './agentos-line.js'
import { AGENTOS_2_9 } from './agentos-2.9.js'
import { AGENTOS_3_0 } from './agentos-3.0.js'

export { AGENTOS_LINES, isAgentOsLine, type AgentOsLine } from './agentos-line.js'
export type { AgentOsCatalogue } from './agentos-catalogue.js'
export { definedScopes } from './defined-scopes.js'

const CATALOGUES: Readonly<Record<AgentOsLine, AgentOsCatalogue>> = {
  '2.9': AGENTOS_2_9,
  '3.0': AGENTOS_3_0,
}

/** The catalogue of one AgentOS line. */
export function agentosCatalogue(line: AgentOsLine): AgentOsCatalogue {
  return CATALOGUES[line]
}
