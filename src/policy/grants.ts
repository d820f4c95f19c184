import { BoundedCache } from '../bounded-cache.js'
import type { ResourceContext } from './catalogue/route-facts.js'
import { scopeCovers } from './scope-match.js'
import { parseScope, type ParsedScope } from './scope.js'

/** Ids a caller may see in a listing: every one, or exactly these. */
export type AccessibleIds = ReadonlySet<string> | 'all'

// Scopes come from tokens: a flood of distinct ones must not grow the table without bound.
const MAX_PARSED_SCOPES = 4_096

/**
 * What a caller's scopes grant under one admin scope (SCOPE-3, SCOPE-4, RBAC-1, RBAC-2). Callers present the
 * same few scope strings on every request, so each is parsed once; the table belongs to this
 * instance (one per config), never to the process.
 */
export class Grants {
  readonly adminScope: string
  readonly #parsed = new BoundedCache<string, ParsedScope>({ max: MAX_PARSED_SCOPES })
  readonly #heldLists = new WeakMap<readonly string[], readonly ParsedScope[]>()
  /** Requirements as checked on one path (by its resource context), by requirement. */
  readonly #onPath = new WeakMap<ResourceContext, Map<string, ParsedScope>>()

  constructor(adminScope: string) {
    this.adminScope = adminScope
  }

  /** Whether the caller's scopes satisfy one required scope template on a path (SCOPE-3). */
  satisfies(
    callerScopes: readonly string[],
    requirement: string,
    context: ResourceContext | undefined,
  ): boolean {
    if (callerScopes.includes(this.adminScope)) return true
    const required = this.#effectiveRequirement(requirement, context)
    const held = this.#held(callerScopes)
    for (let index = 0; index < held.length; index++) {
      if (scopeCovers(held[index] as ParsedScope, required)) return true
    }
    return false
  }

  /**
   * All requirements must hold (AND); each may be satisfied by a different scope. Indexed loops
   * here and in `satisfies`: `every` with a closure and an iterator cost more than the check.
   */
  satisfiesAll(
    callerScopes: readonly string[],
    requirements: readonly string[],
    context: ResourceContext | undefined,
  ): boolean {
    for (let index = 0; index < requirements.length; index++) {
      if (!this.satisfies(callerScopes, requirements[index] as string, context)) return false
    }
    return true
  }

  /**
   * The ids of `family` the caller may list with one of `actions` (AgentOS's
   * `get_accessible_resource_ids`): admin, a global or a wildcard scope gives 'all'.
   */
  accessibleIds(
    callerScopes: readonly string[],
    family: string,
    actions: ReadonlySet<string>,
  ): AccessibleIds {
    const ids = new Set<string>()
    for (const scope of callerScopes) {
      const parsed = this.#parse(scope)
      if (parsed.kind === 'admin') return 'all'
      if (parsed.kind === 'unknown') continue
      if (parsed.resource !== family || !actions.has(parsed.action)) continue
      if (parsed.kind === 'global' || parsed.wildcard) return 'all'
      ids.add(parsed.id)
    }
    return ids
  }

  /**
   * A caller's scopes, parsed. Principals are immutable and cached, and a service account's list
   * is shared by every account with the same scopes, so the same array comes back.
   */
  #held(callerScopes: readonly string[]): readonly ParsedScope[] {
    let held = this.#heldLists.get(callerScopes)
    if (held === undefined) {
      held = callerScopes.map((scope) => this.#parse(scope))
      this.#heldLists.set(callerScopes, held)
    }
    return held
  }

  #parse(scope: string): ParsedScope {
    return (
      this.#parsed.get(scope) ?? this.#parsed.remember(scope, parseScope(scope, this.adminScope))
    )
  }

  /**
   * The requirement as AgentOS checks it on this path: with a resource id in the path, a 2-part
   * `X:action` becomes `<path family>:<id>:action` whatever X was (a quirk kept on purpose,
   * SCOPE-3); a 3-part requirement is used verbatim.
   */
  #effectiveRequirement(requirement: string, context: ResourceContext | undefined): ParsedScope {
    if (context?.id === undefined) return this.#parse(requirement)
    // A path's matched route, and so its context, is shared by the requests for that path.
    let onPath = this.#onPath.get(context)
    if (onPath === undefined) this.#onPath.set(context, (onPath = new Map<string, ParsedScope>()))
    let parsed = onPath.get(requirement)
    if (parsed === undefined) {
      const parts = requirement.split(':')
      parsed =
        parts.length === 2
          ? this.#parse(`${context.family}:${context.id}:${parts[1] ?? ''}`)
          : this.#parse(requirement)
      onPath.set(requirement, parsed)
    }
    return parsed
  }
}
