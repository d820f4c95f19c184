import { performance } from 'node:perf_hooks'
import { credentialSourceProblems, type AuthModeSummary } from '../config/auth-mode.js'
import { GatewayError, toGatewayError } from '../errors.js'
import type { Logger } from '../logger.js'
import type { Metrics } from '../metrics.js'
import type { Authorizer } from '../policy/authorizer.js'
import type { MatchedRoute, RouteCatalogue } from '../policy/catalogue/route-catalogue.js'
import type { Credential } from './credential.js'
import type { CredentialKind, CredentialSource, Decision } from './decision.js'
import type { ExcludedRoutes } from './excluded-routes.js'
import { extractCredential, type CredentialSettings } from './extract-credential.js'
import type { InboundRequest } from '../inbound/inbound-request.js'
import { ANONYMOUS, type Principal } from '../principal.js'
import { AuthModePolicy, type CredentialUse } from './auth-mode-policy.js'
import { ServiceAccountsOff, VerifierChain, type ChainOutcome } from './verifier-chain.js'
import type { Verifier } from './verifier.js'

export interface DecideOptions {
  /**
   * Overrides extraction (a WebSocket subprotocol or first frame); undefined means "read it from
   * the request", null "there is none".
   */
  readonly credential?: Credential | null
  /** Read when the request's header and cookie carry none (a WebSocket's `bearer` subprotocol). */
  readonly fallback?: Credential
  /** The request's match, when the transport already made it. */
  readonly route?: MatchedRoute
}

export interface AuthPipelineDeps {
  readonly mode: AuthModeSummary
  readonly credentials: CredentialSettings
  readonly excluded: ExcludedRoutes
  /** The AgentOS line's routes under this config. */
  readonly catalogue: RouteCatalogue
  readonly authorizer: Authorizer
  /** Undefined when service accounts are switched off. */
  readonly serviceAccounts: Verifier | undefined
  readonly scheduler: Verifier | undefined
  /** Present exactly when a JWT source is configured. */
  readonly jwt: Verifier | undefined
  /** Present when a security key is configured and no JWT source is. */
  readonly securityKey: Verifier | undefined
  readonly metrics?: Metrics
  /** At `debug`, one line per decision: credential source, verifier, outcome, reason. */
  readonly logger?: Logger
}

/** What authentication looked at, for the decision (never the credential itself). */
interface Trace {
  source: CredentialSource
  kind: CredentialKind
}

/** An authenticated credential and what it was, or a refusal and what was looked at. */
export type Authentication =
  | { readonly ok: true; readonly principal: Principal; readonly trace: Readonly<Trace> }
  | { readonly ok: false; readonly refusal: GatewayError; readonly trace: Readonly<Trace> }

/** Why these verifiers cannot implement the configured mode (CONF-1), or undefined. */
function verifierProblem(deps: AuthPipelineDeps): string | undefined {
  const { mode } = deps
  const [ruleProblem] = credentialSourceProblems(mode, {
    serviceAccounts: deps.serviceAccounts !== undefined,
    authorizationKey: 'auth.authorization',
  })
  if (ruleProblem !== undefined) return ruleProblem
  if (mode.jwtConfigured !== (deps.jwt !== undefined)) {
    return 'auth: a JWT verifier is given exactly when a JWT source is configured'
  }
  if (mode.mode === 'security_key' && deps.securityKey === undefined) {
    return 'auth.security_key: security-key mode needs the security-key verifier'
  }
  return undefined
}

/**
 * The verifiers of a mode, in AgentOS's dispatch order (AUTH-3): service-account tokens by their
 * prefix first (PAT-1), then the scheduler token, then the mode's verifier. An open instance has
 * only the first: it looks at no other credential.
 */
function verifierChain(deps: AuthPipelineDeps): VerifierChain {
  const serviceAccounts = deps.serviceAccounts ?? new ServiceAccountsOff()
  if (deps.mode.open) return new VerifierChain([serviceAccounts])
  const chain: Verifier[] = [serviceAccounts]
  if (deps.scheduler !== undefined) chain.push(deps.scheduler)
  const modeVerifier = deps.jwt ?? deps.securityKey
  if (modeVerifier !== undefined) chain.push(modeVerifier)
  return new VerifierChain(chain)
}

/**
 * Authentication in AgentOS's dispatch order (AUTH-3), then authorization. HTTP requests, WebSocket
 * upgrades and the workflow socket's credentials all come through here, and each decision is
 * counted (`portcullis_auth_outcomes_total`) and traced at debug level.
 */
export class AuthPipeline {
  readonly #deps: AuthPipelineDeps
  readonly #chain: VerifierChain
  readonly #policy: AuthModePolicy

  /**
   * Refuses (a plain Error, before anything listens) a set of verifiers that CONF-1
   * forbids. The config loader reports these too; this keeps a config built in code, which
   * never went through it, from running open by accident.
   */
  constructor(deps: AuthPipelineDeps) {
    const problem = verifierProblem(deps)
    if (problem !== undefined) throw new Error(problem)
    this.#deps = deps
    this.#chain = verifierChain(deps)
    this.#policy = new AuthModePolicy(deps.mode, deps.credentials)
  }

  /** The verifiers' kinds in the order a credential is offered to them. */
  get verifiers(): readonly Verifier['kind'][] {
    return this.#chain.kinds
  }

  /** What the auth mode answers where no verifier has (open instances, anonymous callers). */
  get policy(): AuthModePolicy {
    return this.#policy
  }

  /** Whether a request to this path needs no credential (excluded routes; preflights for HTTP). */
  isPublic(request: Pick<InboundRequest, 'method' | 'path' | 'transport'>): boolean {
    return (
      (request.transport === 'http' && request.method === 'OPTIONS') ||
      this.#deps.excluded.has(request.path)
    )
  }

  /** The catalogue's match for a request: once per request, read by every later stage. */
  match(request: Pick<InboundRequest, 'method' | 'path'>): MatchedRoute {
    return this.#deps.catalogue.match(request.method, request.path)
  }

  /**
   * Authenticates and authorizes: the decision, a refusal included (never thrown). It comes at
   * once when nothing had to be waited for (a public route, a cached credential, a refusal made
   * without a lookup), else as a promise.
   */
  decide(request: InboundRequest, options: DecideOptions = {}): Decision | Promise<Decision> {
    const route = options.route ?? this.match(request)
    if (this.isPublic(request)) {
      return {
        outcome: 'public',
        reason: 'ok',
        route,
        credential: { kind: 'none', source: 'none' },
        principal: ANONYMOUS,
        authorization: undefined,
      }
    }
    const startedAt = performance.now()
    const authentication = this.#authenticate(request, undefined, options, 'rest')
    return authentication instanceof Promise
      ? authentication.then((done) => this.#decided(request, route, done, startedAt))
      : this.#decided(request, route, authentication, startedAt)
  }

  #decided(
    request: InboundRequest,
    route: MatchedRoute,
    authentication: Authentication,
    startedAt: number,
  ): Decision {
    const credential = authentication.trace
    let decision: Decision
    if (!authentication.ok) {
      decision = denied(route, credential, undefined, authentication.refusal)
    } else {
      const principal = authentication.principal
      try {
        const authorization = this.#deps.authorizer.authorize(principal, route)
        decision = { outcome: 'allowed', reason: 'ok', route, credential, principal, authorization }
      } catch (error) {
        decision = denied(route, credential, principal, toGatewayError(error))
      }
    }
    this.#record(request, decision, decision.credential, startedAt)
    return decision
  }

  /**
   * Authentication alone, for a credential given after the upgrade (the workflow socket's
   * `authenticate` frame): counted and traced like a decision, with no route to authorize.
   */
  async authenticate(
    request: InboundRequest,
    credential: Credential,
    use: CredentialUse,
  ): Promise<Authentication> {
    const startedAt = performance.now()
    const authentication = await this.#authenticate(request, credential, {}, use)
    this.#record(
      request,
      authentication.ok
        ? { outcome: 'allowed', reason: 'ok', principal: authentication.principal }
        : { outcome: 'denied', reason: authentication.refusal.reason, principal: undefined },
      authentication.trace,
      startedAt,
    )
    return authentication
  }

  /** The credential a decision looks at: given, or read from the request (a 400 when repeated). */
  credential(request: InboundRequest, options: DecideOptions = {}): Credential | undefined {
    if (options.credential !== undefined) return options.credential ?? undefined
    return extractCredential(request, this.#deps.credentials) ?? options.fallback
  }

  /**
   * The credential given, else the one the request carries (read here: a repeated one is a
   * refusal like any other), verified by the chain.
   */
  #authenticate(
    request: InboundRequest,
    given: Credential | undefined,
    options: DecideOptions,
    use: CredentialUse,
  ): Authentication | Promise<Authentication> {
    const trace: Trace = { source: 'none', kind: 'none' }
    try {
      const credential = given ?? this.credential(request, options)
      if (credential === undefined) {
        const answer = this.#policy.withoutCredential()
        return answer instanceof GatewayError
          ? { ok: false, refusal: answer, trace }
          : { ok: true, principal: answer, trace }
      }
      trace.source = credential.source
      const outcome = this.#chain.verify(credential, request)
      if (!(outcome instanceof Promise)) return this.#authenticated(outcome, use, trace)
      // The chain never rejects; a rejection all the same is a refusal, never a pass.
      return outcome.then(
        (settled) => this.#authenticated(settled, use, trace),
        (error: unknown) => this.#refused(error, use, trace),
      )
    } catch (error) {
      return this.#refused(error, use, trace)
    }
  }

  /** The principal the chain's outcome makes under the auth mode's policy. */
  #authenticated(outcome: ChainOutcome, use: CredentialUse, trace: Trace): Authentication {
    if (outcome.claimedBy !== undefined) {
      trace.kind = outcome.claimedBy
      // Claimed without a principal is refused, whatever the refusal is (fails closed).
      if (outcome.principal === undefined) return this.#refused(outcome.refusal, use, trace)
    }
    try {
      const principal = outcome.principal ?? this.#policy.unclaimed()
      return { ok: true, principal: this.#policy.accepts(principal, use), trace }
    } catch (error) {
      return { ok: false, refusal: toGatewayError(error), trace }
    }
  }

  /**
   * A verifier's refusal, as the auth mode's policy takes it (an open instance ignores a refused
   * token on REST, PAT-6); anything else is a refusal of its own.
   */
  #refused(error: unknown, use: CredentialUse, trace: Trace): Authentication {
    // Asked first, not thrown again: the refusals of a flood of bad tokens come through here.
    if (!(error instanceof GatewayError) || !this.#policy.ignoresRefusal(use))
      return { ok: false, refusal: toGatewayError(error), trace }
    try {
      return {
        ok: true,
        principal: this.#policy.accepts(this.#policy.refused(error, use), use),
        trace,
      }
    } catch (refusal) {
      return { ok: false, refusal: toGatewayError(refusal), trace }
    }
  }

  /** The metrics and the debug line of a decision; never the credential. */
  #record(
    request: InboundRequest,
    decision: Pick<Decision, 'outcome' | 'reason' | 'principal'> & {
      readonly route?: MatchedRoute
    },
    credential: Decision['credential'],
    startedAt: number,
  ): void {
    const metrics = this.#deps.metrics
    const principal = decision.principal
    const outcome = decision.outcome === 'denied' ? 'denied' : 'allowed'
    if (metrics !== undefined) {
      metrics.countAuthOutcome(
        principal?.kind ?? credentialLabel(credential.kind),
        outcome,
        decision.reason,
      )
      metrics.observeAuth(principal?.kind ?? 'none', (performance.now() - startedAt) / 1000)
    }
    const logger = this.#deps.logger
    if (logger === undefined || !logger.isLevelEnabled('debug')) return
    logger.debug(
      {
        req_id: request.requestId,
        transport: request.transport,
        method: request.method,
        route: decision.route?.rule?.template,
        credential_source: credential.source,
        verifier: credential.kind,
        principal: principal?.kind,
        user_id: principal?.userId ?? undefined,
        outcome,
        reason: decision.reason,
      },
      'auth decision',
    )
  }
}

/** The `credential` label of a refusal no principal was made for: the verifier that refused. */
function credentialLabel(kind: CredentialKind): string {
  return kind === 'none' ? 'credential' : kind
}

function denied(
  route: MatchedRoute,
  credential: Decision['credential'],
  principal: Principal | undefined,
  refusal: GatewayError,
): Decision {
  return {
    outcome: 'denied',
    reason: refusal.reason,
    route,
    credential,
    principal,
    authorization: undefined,
    refusal,
  }
}
