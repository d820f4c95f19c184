import { performance } from 'node:perf_hooks'
import { NO_CREDENTIAL_SOURCE, type AuthModeSummary } from '../config/auth-mode.js'
import { GatewayError, toGatewayError } from '../errors.js'
import type { Logger } from '../logger.js'
import type { Metrics } from '../metrics.js'
import type { Authorization, Authorizer } from '../policy/authorizer.js'
import type { MatchedRoute, RouteCatalogue } from '../policy/catalogue/route-catalogue.js'
import { isServiceToken, type Credential } from './credential.js'
import type { ExcludedRoutes } from './excluded-routes.js'
import {
  extractCredential,
  missingCredentialError,
  type CredentialSettings,
} from './extract-credential.js'
import type { InboundRequest } from '../inbound/inbound-request.js'
import { ANONYMOUS, type Principal } from '../principal.js'
import { NOT_RESPONSIBLE, type Verifier } from './verifier.js'

/** The outcome of authentication and authorization for one request. */
export interface AuthDecision {
  readonly principal: Principal
  /** Undefined for public requests (excluded routes, preflights), which are never authorized. */
  readonly authorization: Authorization | undefined
  /** An excluded route or a CORS preflight: no credential was looked at. */
  readonly public: boolean
  /** What the route catalogue knows of the request, matched once for every later stage. */
  readonly route: MatchedRoute
}

export interface DecideOptions {
  /**
   * Overrides extraction (a WebSocket subprotocol or first frame); undefined means "read it from
   * the request", null "there is none".
   */
  readonly credential?: Credential | null
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

/** What authentication looked at, for the debug line (never the credential itself). */
interface Trace {
  source: Credential['source'] | 'none'
  verifier: Verifier['kind'] | 'none'
}

/** The credential kind a failure reason belongs to (`jwt.expired` → jwt), for bounded labels. */
function credentialOf(reason: string): string {
  const kind = reason.slice(0, reason.indexOf('.'))
  return kind === 'jwt' || kind === 'service_account' || kind === 'security_key' || kind === 'rbac'
    ? kind
    : 'credential'
}

const SERVICE_ACCOUNTS_DISABLED = 'Service accounts are not enabled on this AgentOS instance'

/** Why these verifiers cannot implement the configured mode (CONF-1), or undefined. */
function credentialSourceProblem(deps: AuthPipelineDeps): string | undefined {
  const { mode } = deps
  if (mode.authorizationEnabled && deps.jwt === undefined) {
    return 'auth.authorization: JWT authorization requires a JWT verification source (auth.verification_keys, auth.jwks_file, JWT_VERIFICATION_KEY, JWT_JWKS_FILE or auth.validate: false)'
  }
  if (mode.mode === 'jwt' && deps.jwt === undefined) {
    return 'auth: a JWT source is configured but no JWT verifier was given'
  }
  if (mode.mode === 'security_key' && deps.securityKey === undefined) {
    return 'auth.security_key: security-key mode needs the security-key verifier'
  }
  if (mode.mode === 'none' && !mode.open) return NO_CREDENTIAL_SOURCE
  if (mode.mode === 'none' && deps.serviceAccounts === undefined) {
    return 'auth: at least one credential source is required: JWT keys or a JWKS file, the service-account store (service_accounts.enabled), or a security key'
  }
  return undefined
}

/**
 * Authentication in AgentOS's dispatch order (AUTH-3), then authorization. HTTP requests and
 * WebSocket upgrades both come through here.
 */
export class AuthPipeline {
  readonly #deps: AuthPipelineDeps
  readonly #open: boolean

  /**
   * Refuses (a plain Error, before anything listens) a set of verifiers that CONF-1
   * forbids. The config loader reports these too; this keeps a config built in code, which
   * never went through it, from running open by accident.
   */
  constructor(deps: AuthPipelineDeps) {
    const problem = credentialSourceProblem(deps)
    if (problem !== undefined) throw new Error(problem)
    this.#deps = deps
    // Open (asked for with auth.open): no JWT source and no security key. Anonymous requests
    // pass; only service-account tokens are looked at, and an unverifiable one is ignored (PAT-6).
    this.#open = deps.mode.open
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

  /** Authenticates and authorizes. */
  async decide(request: InboundRequest, options: DecideOptions = {}): Promise<AuthDecision> {
    const route = options.route ?? this.match(request)
    if (this.isPublic(request))
      return { principal: ANONYMOUS, authorization: undefined, public: true, route }
    const metrics = this.#deps.metrics
    const startedAt = performance.now()
    const trace: Trace = { source: 'none', verifier: 'none' }
    let principal: Principal | undefined
    try {
      principal = await this.#authenticate(request, options.credential, trace)
      const authorization = this.#deps.authorizer.authorize(principal, route)
      metrics?.countAuthOutcome(principal.kind, 'allowed', 'ok')
      this.#debug(request, trace, principal, 'allowed', 'ok', authorization)
      return { principal, authorization, public: false, route }
    } catch (error) {
      const reason = toGatewayError(error).reason
      metrics?.countAuthOutcome(principal?.kind ?? credentialOf(reason), 'denied', reason)
      this.#debug(request, trace, principal, 'denied', reason, undefined)
      throw error
    } finally {
      metrics?.observeAuth(principal?.kind ?? 'none', (performance.now() - startedAt) / 1000)
    }
  }

  /** Authentication alone: a Principal, or a GatewayError (401, 429, 503). */
  authenticate(request: InboundRequest, credential?: Credential | null): Promise<Principal> {
    return this.#authenticate(request, credential, { source: 'none', verifier: 'none' })
  }

  async #authenticate(
    request: InboundRequest,
    credential: Credential | null | undefined,
    trace: Trace,
  ): Promise<Principal> {
    const deps = this.#deps
    const found =
      credential === undefined
        ? extractCredential(request, deps.credentials)
        : (credential ?? undefined)
    if (found === undefined) {
      if (this.#open) return ANONYMOUS
      throw missingCredentialError(
        deps.credentials,
        deps.mode.mode === 'jwt' ? 'jwt' : 'security_key',
      )
    }
    trace.source = found.source
    if (isServiceToken(found.token)) {
      trace.verifier = 'service_account'
      return this.#serviceAccount(found, request)
    }
    if (this.#open) return ANONYMOUS
    if (deps.scheduler !== undefined) {
      trace.verifier = 'scheduler'
      const scheduler = await deps.scheduler.verify(found, request)
      if (scheduler !== NOT_RESPONSIBLE) return scheduler
    }
    const verifier = deps.jwt ?? deps.securityKey
    if (verifier === undefined)
      throw new Error('a credential source must be configured outside open mode')
    trace.verifier = verifier.kind
    const principal = await verifier.verify(found, request)
    if (principal === NOT_RESPONSIBLE) {
      throw new GatewayError('TOKEN_INVALID', 'Invalid authentication token', {
        reason: 'credential.unsupported',
      })
    }
    return principal
  }

  /** The decision path at debug level: what was looked at and why; never the credential. */
  #debug(
    request: InboundRequest,
    trace: Trace,
    principal: Principal | undefined,
    outcome: 'allowed' | 'denied',
    reason: string,
    authorization: Authorization | undefined,
  ): void {
    const logger = this.#deps.logger
    if (logger === undefined || !logger.isLevelEnabled('debug')) return
    logger.debug(
      {
        req_id: request.requestId,
        transport: request.transport,
        method: request.method,
        route: authorization?.route?.template,
        credential_source: trace.source,
        verifier: trace.verifier,
        principal: principal?.kind,
        user_id: principal?.userId ?? undefined,
        outcome,
        reason,
      },
      'auth decision',
    )
  }

  async #serviceAccount(credential: Credential, request: InboundRequest): Promise<Principal> {
    const verifier = this.#deps.serviceAccounts
    if (verifier === undefined) {
      if (this.#open) return ANONYMOUS
      throw new GatewayError('SERVICE_ACCOUNTS_DISABLED', SERVICE_ACCOUNTS_DISABLED, {
        reason: 'service_account.disabled',
      })
    }
    try {
      const principal = await verifier.verify(credential, request)
      if (principal === NOT_RESPONSIBLE)
        throw new Error('service-account verifier declined a svc_pat_ token')
      return principal
    } catch (error) {
      // An open instance ignores tokens it cannot verify; a verified token's scopes still apply.
      if (this.#open && error instanceof GatewayError) return ANONYMOUS
      throw error
    }
  }
}
