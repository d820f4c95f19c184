import type { Config } from '../config/schema.js'
import type { RouteEntry } from '../policy/route-table.js'

export type InterfacesConfig = Config['interfaces']

type Action = 'read' | 'run'

// ROUTE-4: the A2A routes per family, below `{prefix}/{family}/{id}`.
const A2A_FAMILY_ROUTES: readonly (readonly [string, string, Action])[] = [
  ['GET', '.well-known/agent-card.json', 'read'],
  ['POST', 'v1/message:send', 'run'],
  ['POST', 'v1/message:stream', 'run'],
  ['POST', 'v1/tasks:get', 'read'],
  ['POST', 'v1/tasks:cancel', 'run'],
]
// Workflows have no task routes in AgentOS's A2A interface.
const A2A_FAMILIES: readonly (readonly [string, number])[] = [
  ['agents', 5],
  ['teams', 5],
  ['workflows', 3],
]
/** The deprecated dynamic dispatch below the prefix; the family comes from `X-Agent-ID`. */
export const A2A_DEPRECATED_ROUTES: readonly string[] = ['message/send', 'message/stream']

function entry(method: string, template: string, scope: string): RouteEntry {
  return { method, template, scopes: [scope], source: 'interface' }
}

export function a2aMappings(prefix: string): RouteEntry[] {
  const entries: RouteEntry[] = []
  for (const [family, count] of A2A_FAMILIES) {
    for (const [method, suffix, action] of A2A_FAMILY_ROUTES.slice(0, count)) {
      entries.push(entry(method, `${prefix}/${family}/{id}/${suffix}`, `${family}:${action}`))
    }
  }
  for (const suffix of A2A_DEPRECATED_ROUTES) {
    entries.push(entry('POST', `${prefix}/${suffix}`, 'agents:run'))
  }
  return entries
}

/** The AG-UI family of an endpoint: an agent-bound one runs agents, a team-bound one teams. */
export function aguiFamily(bound: 'agent' | 'team'): 'agents' | 'teams' {
  return bound === 'agent' ? 'agents' : 'teams'
}

/** The interface mappings merged into the route table (AgentOS passes them as scope mappings). */
export function interfaceMappings(interfaces: InterfacesConfig): RouteEntry[] {
  const entries = interfaces.a2a.enabled ? a2aMappings(interfaces.a2a.prefix) : []
  for (const { prefix, bound } of interfaces.agui.endpoints) {
    entries.push(entry('POST', `${prefix}/agui`, `${aguiFamily(bound)}:run`))
  }
  return entries
}

/** Routes that bypass authentication: MCP discovery documents and webhook interfaces. */
export function publicInterfaceRoutes(interfaces: InterfacesConfig): string[] {
  return [
    ...interfaces.mcp.public_routes,
    ...interfaces.webhooks.prefixes.map((prefix) => `${prefix}/**`),
  ]
}
