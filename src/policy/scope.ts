import { scopeCovers } from './scope-match.js'

/** A scope string as AgentOS's `parse_scope` reads it (SCOPE-1). */
export type ParsedScope =
  | { readonly kind: 'admin' }
  | { readonly kind: 'global'; readonly resource: string; readonly action: string }
  | {
      readonly kind: 'resource'
      readonly resource: string
      readonly id: string
      readonly action: string
      readonly wildcard: boolean
    }
  | { readonly kind: 'unknown' }

/** The wire shape of a scope in API responses (`split_scope`). */
export interface ScopeParts {
  readonly namespace: string
  readonly sub_namespace: string | null
  readonly permission: string
}

const LEGACY_RESOURCE_ALIASES: ReadonlyMap<string, string> = new Map([['system', 'config']])

/** `auth.admin_scope` unless configured otherwise. */
export const DEFAULT_ADMIN_SCOPE = 'os:admin'

/** AgentOS's own admin scope: privileged at mint even when another admin scope is configured. */
export const AGENTOS_ADMIN_SCOPE = 'agent_os:admin'

/** Scopes a new token gets when the mint request has no `scopes` (MINT-3), in this order. */
export const DEFAULT_TOKEN_SCOPES: readonly string[] = Object.freeze([
  'agents:run',
  'teams:run',
  'workflows:run',
  'sessions:read',
  'config:read',
])

const PRIVILEGED_ACTIONS: ReadonlySet<string> = new Set(['write', 'delete'])
const SERVICE_ACCOUNTS_RESOURCE = 'service_accounts'

function unalias(resource: string): string {
  return LEGACY_RESOURCE_ALIASES.get(resource) ?? resource
}

export function parseScope(scope: string, adminScope: string): ParsedScope {
  if (scope === adminScope) return { kind: 'admin' }
  const parts = scope.split(':')
  if (parts.length === 2) {
    const [resource = '', action = ''] = parts
    return { kind: 'global', resource: unalias(resource), action }
  }
  if (parts.length === 3) {
    const [resource = '', id = '', action = ''] = parts
    return { kind: 'resource', resource: unalias(resource), id, action, wildcard: id === '*' }
  }
  return { kind: 'unknown' }
}

/** AgentOS's display split; the admin scope is deliberately not special-cased (SCOPE-1). */
export function splitScope(scope: string): ScopeParts {
  const parts = scope.split(':')
  const [first = '', ...rest] = parts
  if (rest.length === 0) return { namespace: first, sub_namespace: null, permission: 'unknown' }
  const namespace = unalias(first)
  const permission = rest.pop() ?? ''
  return { namespace, sub_namespace: rest.length === 0 ? null : rest.join(':'), permission }
}

/** Requested scopes that are not admin, global or per-resource, in request order (SCOPE-1). */
export function invalidScopes(scopes: readonly string[], adminScope: string): string[] {
  return scopes.filter((scope) => parseScope(scope, adminScope).kind === 'unknown')
}

/** Requested scopes that need `allow_privileged_scopes`, in request order (MINT-2). */
export function privilegedScopes(scopes: readonly string[], adminScope: string): string[] {
  return scopes.filter((scope) => {
    if (scope === AGENTOS_ADMIN_SCOPE) return true
    const parsed = parseScope(scope, adminScope)
    switch (parsed.kind) {
      case 'admin':
        return true
      case 'global':
      case 'resource':
        return (
          PRIVILEGED_ACTIONS.has(parsed.action) || parsed.resource === SERVICE_ACCOUNTS_RESOURCE
        )
      case 'unknown':
        return false
    }
  })
}

/**
 * The subset rule (MINT-4): requested scopes the caller does not hold, in request order.
 * An admin caller holds everything; only an admin caller holds the admin scope.
 */
export function ungrantableScopes(
  callerScopes: readonly string[],
  requested: readonly string[],
  adminScope: string,
): string[] {
  if (callerScopes.includes(adminScope)) return []
  const held = callerScopes.map((scope) => parseScope(scope, adminScope))
  return requested.filter((scope) => {
    const wanted = parseScope(scope, adminScope)
    return !held.some((holding) => scopeCovers(holding, wanted))
  })
}
