import { isAdmin, type Principal } from '../principal.js'
import { GatewayError } from '../errors.js'
import { missesUserIdentity, missingUserIdentity } from '../user-identity.js'
import { SINGULAR, type HandlerCheck } from './catalogue/route-facts.js'
import type { MatchedRoute, ResourceContext, RouteGate } from './catalogue/route-catalogue.js'
import type { AccessibleIds, Grants } from './grants.js'
import type { RouteMatch } from './route-table.js'

export interface AuthorizerOptions {
  /** What scopes grant, under the configured admin scope. */
  readonly grants: Grants
  /** Portcullis-only: refuse routes that neither a rule nor the catalogue covers. */
  readonly denyUnmapped: boolean
  /** `auth.user_isolation`: the identity-required check of 3.0's handlers (V3-ISO-1). */
  readonly userIsolation: boolean
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
export type Enforcement = 'none' | 'lenient' | 'strict'

const NO_SCOPES: readonly string[] = Object.freeze([])
const NO_CHECKS: readonly HandlerCheck[] = Object.freeze([])
// Without a cached set, AgentOS's listing routes count both actions (RBAC-2).
const LISTING_ACTIONS: ReadonlySet<string> = new Set(['read', 'run'])
// No AgentOS text exists for this Portcullis-only switch; it names no scope because none applies.
export const UNMAPPED_ROUTE_DENIAL = 'Insufficient permissions. No scope mapping covers this route'

/**
 * AUTH-8: who has route scopes and route gates enforced. Service-account identities always; JWT
 * and scheduler identities when authorization is on: the principal's `authorization` setting for
 * REST, every JWT deployment on the workflow WebSocket (WS-1).
 */
export function enforcementFor(
  principal: Principal,
  authorizationEnabled = principal.authorizationEnabled,
): Enforcement {
  switch (principal.kind) {
    case 'service_account':
      return 'lenient'
    case 'jwt':
      return authorizationEnabled ? 'lenient' : 'none'
    case 'scheduler':
      return authorizationEnabled ? 'strict' : 'none'
    case 'security_key':
    case 'anonymous':
      return 'none'
  }
}

function insufficientScopes(
  required: readonly string[],
  reason: 'rbac.listing' | 'rbac.scope',
): GatewayError {
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
  readonly #grants: Grants
  readonly #denyUnmapped: boolean
  readonly #userIsolation: boolean

  constructor(options: AuthorizerOptions) {
    this.#grants = options.grants
    this.#denyUnmapped = options.denyUnmapped
    this.#userIsolation = options.userIsolation
  }

  /**
   * Returns the decision, or throws ACCESS_DENIED with AgentOS's text. The matched route says
   * how the request is decided: HEAD as the GET it mirrors (an HTTP server answers HEAD with GET's
   * headers), unless a rule names HEAD itself.
   */
  authorize(principal: Principal, matched: MatchedRoute): Authorization {
    const route = matched.rule
    const requiredScopes = route?.scopes ?? NO_SCOPES
    const enforcement = enforcementFor(principal)
    if (enforcement === 'none') {
      this.#checkIdentity(principal, matched)
      return { route, accessibleIds: undefined, requiredScopes }
    }

    const scopes = principal.scopes ?? NO_SCOPES
    const gate = matched.gate
    // Routes whose handlers check callers (resume and fork have no rule but a gate; 3.0's queue
    // is admin-only) stay reachable.
    const checked = (matched.route?.checks.length ?? 0) > 0
    if (route === undefined && !checked && this.#denyUnmapped) {
      throw new GatewayError('ACCESS_DENIED', UNMAPPED_ROUTE_DENIAL, { reason: 'rbac.unmapped' })
    }
    const context = matched.context
    const method = matched.method
    let listed = this.#checkScopes(scopes, method, requiredScopes, context, enforcement)
    // Only the REST listing routes filter, and they refuse an empty set; `/a2a/agents` is no route.
    if (context !== undefined && matched.route?.identity === 'listing') {
      listed ??= this.#grants.accessibleIds(scopes, context.family, LISTING_ACTIONS)
      if (listed !== 'all' && listed.size === 0) {
        throw insufficientScopes(requiredScopes, 'rbac.listing')
      }
    }
    if (gate !== undefined && !this.#grants.satisfies(scopes, gate.scope, gate)) {
      throw new GatewayError('ACCESS_DENIED', routeGateDenial(gate), { reason: 'rbac.route_gate' })
    }
    // Handlers run after the middleware's scope check and the route's dependencies.
    this.#checkIdentity(principal, matched)
    return { route, accessibleIds: listed, requiredScopes }
  }

  /**
   * The handler checks that need nothing but the caller: they hold whatever `authorization` says,
   * as AgentOS's handlers read the request state its middleware filled.
   */
  #checkIdentity(principal: Principal, matched: MatchedRoute): void {
    const checks = matched.route?.checks ?? NO_CHECKS
    // Indexed: the lists are frozen, and V8 iterates a frozen array with `for…of` on its slow path.
    for (let index = 0; index < checks.length; index++) {
      const check = checks[index] as HandlerCheck
      if (check.kind === 'admin-when-identified') {
        // V3-QUEUE-2: any identity (scopes or a user id) needs the admin scope; none passes.
        const identified = principal.scopes !== null || principal.userId !== null
        if (identified && !isAdmin(principal, this.#grants.adminScope)) {
          throw new GatewayError('ACCESS_DENIED', check.detail, { reason: 'rbac.admin_required' })
        }
      } else if (
        check.kind === 'identity-required' &&
        missesUserIdentity(principal, this.#grants.adminScope, this.#userIsolation)
      ) {
        throw missingUserIdentity()
      }
    }
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

/** AgentOS's text: `Access denied to run this agent`. */
export function routeGateDenial(gate: RouteGate): string {
  return `Access denied to ${gate.action} this ${SINGULAR[gate.family]}`
}
