import type { Principal } from '../principal.js'
import { GatewayError } from '../errors.js'
import type { AccessibleIds, Grants } from './grants.js'
import { resourceContext, type ResourceContext } from './resource-context.js'
import { routeGate, routeGateDenial } from './route-gates.js'
import type { RouteMatch, RouteTable } from './route-table.js'

export interface AuthorizerOptions {
  readonly table: RouteTable
  /** What scopes grant, under the configured admin scope. */
  readonly grants: Grants
  /** Portcullis-only: refuse routes that neither a rule nor a route gate covers. */
  readonly denyUnmapped: boolean
}

export interface Authorization {
  /** The rule the request resolved to; undefined for an unmapped route. */
  readonly route: RouteMatch | undefined
  /** For listings: the ids the caller may see. Undefined when the listing is not filtered. */
  readonly accessibleIds: AccessibleIds | undefined
  /** The rule's scope templates (never rewritten with ids). */
  readonly requiredScopes: readonly string[]
}

/** `lenient` has the listing fallback of RBAC-2; `strict` (the scheduler) has not. */
type Enforcement = 'none' | 'lenient' | 'strict'

const NO_SCOPES: readonly string[] = Object.freeze([])
// Without a cached set, AgentOS's listing routes count both actions (RBAC-2).
const LISTING_ACTIONS: ReadonlySet<string> = new Set(['read', 'run'])
// No AgentOS text exists for this Portcullis-only switch; it names no scope because none applies.
export const UNMAPPED_ROUTE_DENIAL = 'Insufficient permissions. No scope mapping covers this route'

/** AUTH-8: who has route scopes and route gates enforced. */
function enforcementFor(principal: Principal): Enforcement {
  switch (principal.kind) {
    case 'service_account':
      return 'lenient'
    case 'jwt':
      return principal.authorizationEnabled ? 'lenient' : 'none'
    case 'scheduler':
      return principal.authorizationEnabled ? 'strict' : 'none'
    case 'security_key':
    case 'anonymous':
      return 'none'
  }
}

function insufficientScopes(required: readonly string[], reason: string): GatewayError {
  return new GatewayError(
    'ACCESS_DENIED',
    `Insufficient permissions. Required scope(s): ${required.join(', ')}`,
    { reason },
  )
}

/** The family and action of a scope template as AgentOS's listing check reads them (raw split). */
function familyAndAction(scope: string): { family: string; action: string } | undefined {
  const first = scope.indexOf(':')
  if (first === -1) return undefined
  return { family: scope.slice(0, first), action: scope.slice(scope.lastIndexOf(':') + 1) }
}

/** Route scopes (ROUTE-2, SCOPE-3, SCOPE-4, RBAC-1, RBAC-2), route gates (RBAC-3) and the admin scope (RBAC-1). */
export class Authorizer {
  readonly #table: RouteTable
  readonly #grants: Grants
  readonly #denyUnmapped: boolean

  constructor(options: AuthorizerOptions) {
    this.#table = options.table
    this.#grants = options.grants
    this.#denyUnmapped = options.denyUnmapped
  }

  /**
   * Returns the decision, or throws ACCESS_DENIED with AgentOS's text. HEAD is decided as the GET
   * it mirrors (an HTTP server answers HEAD with GET's headers), unless a rule names HEAD itself.
   */
  authorize(principal: Principal, requestMethod: string, path: string): Authorization {
    let route = this.#table.match(requestMethod, path)
    let method = requestMethod
    if (route === undefined && requestMethod === 'HEAD') {
      method = 'GET'
      route = this.#table.match(method, path)
    }
    const requiredScopes = route?.scopes ?? NO_SCOPES
    const enforcement = enforcementFor(principal)
    if (enforcement === 'none') return { route, accessibleIds: undefined, requiredScopes }

    const scopes = principal.scopes ?? NO_SCOPES
    const gate = routeGate(method, path)
    // Resume and fork are unmapped in AgentOS but gated; the switch must not lock them away.
    if (route === undefined && gate === undefined && this.#denyUnmapped) {
      throw new GatewayError('ACCESS_DENIED', UNMAPPED_ROUTE_DENIAL, { reason: 'rbac.unmapped' })
    }
    const context = resourceContext(path)
    let listed = this.#checkScopes(scopes, method, requiredScopes, context, enforcement)
    // Only the REST listing routes filter, and they refuse an empty set; `/a2a/agents` is no route.
    if (context !== undefined && method === 'GET' && path === `/${context.family}`) {
      listed ??= this.#grants.accessibleIds(scopes, context.family, LISTING_ACTIONS)
      if (listed !== 'all' && listed.size === 0) {
        throw insufficientScopes(requiredScopes, 'rbac.listing')
      }
    }
    if (
      gate !== undefined &&
      !this.#grants.satisfies(scopes, `${gate.family}:${gate.action}`, gate)
    ) {
      throw new GatewayError('ACCESS_DENIED', routeGateDenial(gate), { reason: 'rbac.route_gate' })
    }
    return { route, accessibleIds: listed, requiredScopes }
  }

  /**
   * The mapping check. A failed GET on an id-less path of the family the first requirement names
   * is let through with the ids the caller holds for that requirement's action (RBAC-2).
   */
  #checkScopes(
    scopes: readonly string[],
    method: string,
    required: readonly string[],
    context: ResourceContext | undefined,
    enforcement: Enforcement,
  ): AccessibleIds | undefined {
    if (this.#grants.satisfiesAll(scopes, required, context)) return undefined
    const first = familyAndAction(required[0] ?? '')
    const isListing =
      enforcement === 'lenient' &&
      method === 'GET' &&
      context !== undefined &&
      context.id === undefined &&
      first?.family === context.family
    if (!isListing || first === undefined) throw insufficientScopes(required, 'rbac.scope')
    const actions = first.action === '' ? LISTING_ACTIONS : new Set([first.action])
    return this.#grants.accessibleIds(scopes, context.family, actions)
  }
}
