import type { Principal } from '../principal.js'
import type { AuthMode, AuthModeSummary } from '../config/auth-mode.js'
import { BoundedCache } from '../bounded-cache.js'
import { GatewayError } from '../errors.js'
import type { ForwardPlan, ResponseRewrite } from '../upstream/forward-plan.js'
import { normalizeHeaderName } from '../upstream/upstream-headers.js'
import { AssertionSigner } from './assertion-signer.js'
import { callerScope, SCHEDULE_OWNER_HEADER } from './caller-scope.js'
import { pinBody } from './body-pinning.js'
import { CredentialHandling } from './credential-handling.js'
import type { ObservedFields } from './field-pin.js'
import { refuseReservedUserIdHeader } from './identity-headers.js'
import type { IdentityConfig, PlanInput } from './identity-plan.js'
import { learningsDenial } from './identity-routes.js'
import { filterListing, reportAuthMode } from './response-rewrites.js'
import { PrincipalPlans } from './principal-plans.js'
import { bodyPinsFor, SESSION_ID, USER_ID } from './route-pins.js'
import { rewriteFieldList } from './url-encoded-fields.js'

const SESSION_ONLY: readonly string[] = [SESSION_ID]
const USER_ONLY: readonly string[] = [USER_ID]
const NOTHING_OBSERVED: readonly string[] = []
/** Principals whose header plans are kept: far more than are active at once. */
const MAX_PRINCIPAL_PLANS = 4_096

/**
 * Makes the open upstream see the verified identity and nothing else (ISO-1 to ISO-3): identity
 * headers, `user_id` pinned in the query, forms and JSON bodies, the ownership gate of scoped run
 * actions, listing filters and the `/info` auth mode. Framework-free; called once per request, it
 * returns the first forward plan. A request that changes nothing but headers gets a plan built
 * once per principal and credential handling, shared by every such request.
 */
export class IdentityEnforcer {
  /** Normalized names to strip from every request (`UpstreamHeaderOptions.identityNames`). */
  readonly identityHeaderNames: ReadonlySet<string>
  readonly signer: AssertionSigner | undefined
  readonly #adminScope: string
  readonly #userIsolation: boolean
  readonly #credentials: CredentialHandling
  readonly #assertionHeader: string
  readonly #reportAuthMode: ResponseRewrite
  // Principals are immutable and cached by the verifiers: the plans of the principals in use are
  // built once (per variant of credential handling). Bounded rather than one per cached
  // principal: with 100,000 cached service accounts, plans for all of them cost more heap than
  // the accounts themselves.
  readonly #plans = new BoundedCache<Principal, PrincipalPlans>({
    max: MAX_PRINCIPAL_PLANS,
  })

  readonly #scheduleOwnerHeader: boolean

  /** `scheduleOwnerHeader`: the AgentOS line scopes the scheduler to `X-Schedule-Owner` (3.0). */
  constructor(
    config: IdentityConfig,
    authMode: AuthMode | AuthModeSummary,
    signer?: AssertionSigner,
    scheduleOwnerHeader = false,
  ) {
    this.#scheduleOwnerHeader = scheduleOwnerHeader
    const assertion = config.identity.assertion
    if (assertion.enabled && signer === undefined)
      throw new Error('identity.assertion is enabled but no signer was given')
    this.signer = assertion.enabled ? signer : undefined
    this.#assertionHeader = assertion.header
    this.#adminScope = config.auth.admin_scope
    this.#userIsolation = config.auth.user_isolation
    this.#credentials = new CredentialHandling(config.auth, config.identity.forward_credentials)
    this.#reportAuthMode =
      typeof authMode === 'string'
        ? reportAuthMode(authMode, false)
        : reportAuthMode(authMode.mode, authMode.open)
    const names = config.identity.strip_headers.map(normalizeHeaderName)
    // Only the scheduler's own requests may name a schedule's owner; no client copy goes on.
    names.push(SCHEDULE_OWNER_HEADER)
    if (assertion.enabled) names.push(normalizeHeaderName(assertion.header))
    this.identityHeaderNames = new Set(names)
  }

  /** Builds the enforcer and, when assertions are enabled, its signer (keys generated or loaded). */
  static async create(
    config: IdentityConfig,
    authMode: AuthMode | AuthModeSummary,
    options: { now?: () => number; scheduleOwnerHeader?: boolean } = {},
  ): Promise<IdentityEnforcer> {
    const assertion = config.identity.assertion
    const signer = assertion.enabled
      ? await AssertionSigner.create(
          {
            algorithm: assertion.algorithm,
            issuer: assertion.issuer,
            audience: assertion.audience ?? config.upstream.url,
            lifetimeSeconds: assertion.lifetime_seconds,
            rotationHours: assertion.rotation_hours,
            signingKeysFile: assertion.signing_keys_file,
          },
          options,
        )
      : undefined
    return new IdentityEnforcer(config, authMode, signer, options.scheduleOwnerHeader)
  }

  /** The forward plan, as a promise whatever it needed (planNow's refusals reject it). */
  async plan(input: PlanInput): Promise<ForwardPlan> {
    return this.planNow(input)
  }

  /**
   * The forward plan: at once when nothing had to be waited for (no body to pin, no assertion
   * to sign), which is most requests; a refusal made without waiting is thrown.
   */
  planNow(input: PlanInput): ForwardPlan | Promise<ForwardPlan> {
    const { principal, method, path } = input
    const uid = principal.userId
    const { scoped, forScheduleOwner } = callerScope(principal, input.headers, {
      adminScope: this.#adminScope,
      userIsolation: this.#userIsolation,
      scheduleOwnerHeader: this.#scheduleOwnerHeader,
    })
    // V3-ISO-3: unscoped, the scheduler's run keeps the owner the executor wrote into its form.
    const runUserId = forScheduleOwner ? scoped : uid
    const identity = input.route.route?.identity
    // A HEAD answer has no body to filter or rewrite.
    const route =
      method === 'HEAD' && (identity === 'listing' || identity === 'info') ? undefined : identity
    const isPublic = input.public === true
    if (uid === null && !isPublic) refuseReservedUserIdHeader(input.headers)
    const rewriteResponse =
      route === 'info'
        ? this.#reportAuthMode
        : route === 'listing' && input.accessibleIds instanceof Set
          ? filterListing(input.accessibleIds)
          : undefined

    const gated = scoped !== null && (route === 'run-gated' || route === 'run-continue')
    const checksLearnings = scoped !== null && route === 'learnings'
    const observed = gated ? SESSION_ONLY : checksLearnings ? USER_ONLY : NOTHING_OBSERVED
    const plans =
      this.#plans.get(principal) ?? this.#plans.remember(principal, new PrincipalPlans(principal))
    const fork = route === 'fork'
    // A request that sent no query gets the pins alone, built once with the principal's plans.
    let query = input.query === '' ? plans.emptyQuery(fork, scoped) : undefined
    let sessionGiven = false
    if (input.query !== '') {
      const queryPins = plans.queryPins(fork, scoped)
      if (queryPins.length > 0) {
        const rewrite = rewriteFieldList(input.query, 'query', queryPins, observed)
        if (rewrite.changed) query = rewrite.text
        if (checksLearnings) this.#refuseForeignLearnings(rewrite.observed, scoped, method, path)
        sessionGiven = hasValue(rewrite.observed.get(SESSION_ID))
      }
    }

    const pins = bodyPinsFor(route, principal, scoped, gated && !sessionGiven, observed, runUserId)
    const sessionRequired = gated && !sessionGiven && route
    const answer = { query, rewriteResponse }
    if (pins === undefined || input.body === undefined) {
      if (sessionRequired !== false) requireSession(sessionRequired, principal, undefined)
      return this.#withHeaders(input, isPublic, answer, plans)
    }
    const afterPins = (observedInBody: ObservedFields): ForwardPlan | Promise<ForwardPlan> => {
      if (checksLearnings) this.#refuseForeignLearnings(observedInBody, scoped, method, path)
      if (sessionRequired !== false) requireSession(sessionRequired, principal, observedInBody)
      return this.#withHeaders(input, isPublic, answer, plans)
    }
    const observedInBody = pinBody(input.body, pins)
    return observedInBody instanceof Promise
      ? observedInBody.then(afterPins)
      : afterPins(observedInBody)
  }

  /**
   * The principal's headers plan, last (a refused request costs no signature), with the rest of
   * the answer. Without an assertion to sign, a request that changes nothing but headers, or
   * headers and the pins of an empty query, gets a plan shared by every such request of the
   * principal.
   */
  #withHeaders(
    input: PlanInput,
    isPublic: boolean,
    answer: Pick<ForwardPlan, 'query' | 'rewriteResponse'>,
    plans: PrincipalPlans,
  ): ForwardPlan | Promise<ForwardPlan> {
    const principal = input.principal
    const credentials = this.#credentials.adjustments(principal, input.headers, isPublic)
    const shared = plans.headersOnly(credentials)
    const signer = this.signer
    if (signer === undefined || !principal.authenticated) {
      if (answer.rewriteResponse !== undefined) return { ...shared, ...answer }
      return answer.query === undefined ? shared : plans.headersWithQuery(credentials, answer.query)
    }
    const header = this.#assertionHeader
    return signer.assertionFor(principal).then((assertion) => {
      const inject = [...shared.headers.inject, [header, assertion] as const]
      return { ...shared, headers: { ...shared.headers, inject }, ...answer }
    })
  }

  #refuseForeignLearnings(
    fields: ObservedFields,
    scoped: string | null,
    method: string,
    path: string,
  ): void {
    for (const value of fields.get(USER_ID) ?? []) {
      if (value === null || value === '' || value === scoped) continue
      throw new GatewayError('ACCESS_DENIED', learningsDenial(method, path), {
        reason: 'identity.foreign_learnings',
      })
    }
  }
}

/** A gated run needs a session: given in the query or body, or claimed by the run continued. */
function requireSession(
  route: 'run-gated' | 'run-continue',
  principal: Principal,
  observedInBody: ObservedFields | undefined,
): void {
  const claimed = route === 'run-continue' && principal.sessionId !== null
  if (!claimed && !hasValue(observedInBody?.get(SESSION_ID))) {
    throw new GatewayError('BAD_REQUEST', 'session_id is required for this action', {
      reason: 'identity.session_required',
    })
  }
}

function hasValue(values: readonly unknown[] | undefined): boolean {
  return (
    values?.some((value) => (typeof value === 'string' ? value !== '' : Boolean(value))) === true
  )
}
