import { BoundedMemo } from '../bounded-memo.js'
import type { ResourceContext } from './resource-context.js'
import { scopeCovers } from './scope-match.js'
import { parseScope, type ParsedScope } from './scope.js'

// Scopes come from tokens: a flood of distinct ones must not grow the table without bound.
const parsedScopes = new BoundedMemo<ParsedScope>(4_096)

/** Callers present the same few scope strings on every request: each is parsed once. */
function parsedScope(scope: string, adminScope: string): ParsedScope {
  const key = `${adminScope}\u0000${scope}`
  return parsedScopes.lookup(key) ?? parsedScopes.remember(key, parseScope(scope, adminScope))
}

/** Ids a caller may see in a listing: every one, or exactly these. */
export type AccessibleIds = ReadonlySet<string> | 'all'

/**
 * The requirement as AgentOS checks it on this path: with a resource id in the path, a 2-part
 * `X:action` becomes `<path family>:<id>:action` whatever X was (a quirk kept on purpose, reference
 * 1.3); a 3-part requirement is used verbatim.
 */
function effectiveRequirement(
  requirement: string,
  context: ResourceContext | undefined,
  adminScope: string,
): ParsedScope {
  const parts = requirement.split(':')
  if (parts.length === 2 && context?.id !== undefined) {
    const action = parts[1] ?? ''
    return parsedScope(`${context.family}:${context.id}:${action}`, adminScope)
  }
  return parsedScope(requirement, adminScope)
}

/** Whether the caller's scopes satisfy one required scope template on a path (reference 1.3). */
export function satisfies(
  callerScopes: readonly string[],
  requirement: string,
  context: ResourceContext | undefined,
  adminScope: string,
): boolean {
  if (callerScopes.includes(adminScope)) return true
  const required = effectiveRequirement(requirement, context, adminScope)
  return callerScopes.some((scope) => scopeCovers(parsedScope(scope, adminScope), required))
}

/** All requirements must hold (AND); each may be satisfied by a different scope. */
export function satisfiesAll(
  callerScopes: readonly string[],
  requirements: readonly string[],
  context: ResourceContext | undefined,
  adminScope: string,
): boolean {
  return requirements.every((requirement) =>
    satisfies(callerScopes, requirement, context, adminScope),
  )
}

/**
 * The ids of `family` the caller may list with one of `actions` (AgentOS's
 * `get_accessible_resource_ids`): admin, a global or a wildcard scope gives 'all'.
 */
export function accessibleIds(
  callerScopes: readonly string[],
  family: string,
  actions: ReadonlySet<string>,
  adminScope: string,
): AccessibleIds {
  const ids = new Set<string>()
  for (const scope of callerScopes) {
    const parsed = parsedScope(scope, adminScope)
    if (parsed.kind === 'admin') return 'all'
    if (parsed.kind === 'unknown') continue
    if (parsed.resource !== family || !actions.has(parsed.action)) continue
    if (parsed.kind === 'global' || parsed.wildcard) return 'all'
    ids.add(parsed.id)
  }
  return ids
}
