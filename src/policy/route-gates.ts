import { isResourceFamily, type ResourceFamily } from './resource-context.js'

/** A route-level `require_resource_access` check (RBAC-3). */
export interface RouteGate {
  readonly family: ResourceFamily
  readonly id: string
  readonly action: 'read' | 'run'
}

const SINGULAR: Readonly<Record<ResourceFamily, string>> = {
  agents: 'agent',
  teams: 'team',
  workflows: 'workflow',
}

// Segment shapes after `/{family}/{id}`; `?` stands for any one segment.
const GET_RUN_GATES: readonly (readonly string[])[] = [
  ['runs'],
  ['runs', '?'],
  ['runs', '?', 'checkpoints'],
  ['runs', '?', 'checkpoints', '?'],
]
const POST_RUN_GATES: readonly (readonly string[])[] = [
  ['runs'],
  ['runs', '?', 'cancel'],
  ['runs', '?', 'continue'],
  ['runs', '?', 'resume'],
]
const FORK_GATE: readonly string[] = ['sessions', '?', 'fork']

function shapeMatches(shape: readonly string[], rest: readonly string[]): boolean {
  return shape.length === rest.length && shape.every((part, i) => part === '?' || part === rest[i])
}

function gateAction(
  method: string,
  family: ResourceFamily,
  rest: readonly string[],
): RouteGate['action'] | undefined {
  if (method === 'GET') {
    if (rest.length === 0) return 'read'
    return GET_RUN_GATES.some((shape) => shapeMatches(shape, rest)) ? 'run' : undefined
  }
  if (method !== 'POST') return undefined
  if (POST_RUN_GATES.some((shape) => shapeMatches(shape, rest))) return 'run'
  // Workflows have no session fork route.
  return family !== 'workflows' && shapeMatches(FORK_GATE, rest) ? 'run' : undefined
}

/** The gate AgentOS's route applies to this REST path, if any (A2A paths have none). */
export function routeGate(method: string, path: string): RouteGate | undefined {
  const [family, id, ...rest] = path.slice(1).split('/')
  if (!path.startsWith('/') || !isResourceFamily(family) || id === undefined || id === '')
    return undefined
  const action = gateAction(method, family, rest)
  return action === undefined ? undefined : { family, id, action }
}

/** AgentOS's text: `Access denied to run this agent`. */
export function routeGateDenial(gate: RouteGate): string {
  return `Access denied to ${gate.action} this ${SINGULAR[gate.family]}`
}
