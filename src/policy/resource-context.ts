/** The families whose paths carry per-resource scopes. */
export type ResourceFamily = 'agents' | 'teams' | 'workflows'

/** The resource a path addresses, used to rewrite requirements into per-resource ones. */
export interface ResourceContext {
  readonly family: string
  /** Absent on an id-less path such as a listing. */
  readonly id: string | undefined
}

const FAMILIES: ReadonlySet<string> = new Set<ResourceFamily>(['agents', 'teams', 'workflows'])

export function isResourceFamily(segment: string | undefined): segment is ResourceFamily {
  return segment !== undefined && FAMILIES.has(segment)
}

/**
 * SCOPE-3's anchored rule: the first segment, or the second after a literal `a2a`, must be
 * exactly a family; the id is the next segment. `/knowledge/content/agents-x`, `/agentsfoo` and
 * `/traces/agents-run-1` have no context.
 */
export function resourceContext(
  path: string,
): { readonly family: ResourceFamily; readonly id: string | undefined } | undefined {
  if (!path.startsWith('/')) return undefined
  const segments = path.slice(1).split('/')
  const offset = segments[0] === 'a2a' && isResourceFamily(segments[1]) ? 1 : 0
  const family = segments[offset]
  if (!isResourceFamily(family)) return undefined
  const id = segments[offset + 1]
  // AgentOS captures the id with `[^/]+`, so an empty segment is no id.
  return { family, id: id === '' ? undefined : id }
}
