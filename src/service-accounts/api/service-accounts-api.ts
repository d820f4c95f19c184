import { randomUUID } from 'node:crypto'
import { isAdmin, type Principal } from '../../principal.js'
import { GatewayError } from '../../errors.js'
import type { Logger } from '../../logger.js'
import type { AgentOsLine } from '../../policy/catalogue/agentos-line.js'
import type { Grants } from '../../policy/grants.js'
import {
  DEFAULT_TOKEN_SCOPES,
  invalidScopes,
  privilegedScopes,
  ungrantableScopes,
} from '../../policy/scope.js'
import { NameConflictError, StoreUnavailableError } from '../store-errors.js'
import { STORE_RETRY_AFTER_SECONDS } from '../verification-errors.js'
import type { ServiceAccountStore } from '../store.js'
import type { AuditDetails, AuditDraft, EventQuery } from '../audit-event.js'
import type { RequestClient } from '../../inbound/inbound-request.js'
import { mintToken } from '../token-format.js'
import { accountResponse } from './account-response.js'
import {
  accountNotFound,
  assertMayRead,
  assertMayRevoke,
  visibleAccounts,
  type VisibleAccounts,
} from './account-visibility.js'
import { eventResponse } from './event-response.js'
import { parseEventParams } from './event-params.js'
import { parseListParams, type PageParams } from './list-params.js'
import { parseMintRequest } from './mint-request.js'

export interface ApiResponse {
  readonly status: number
  readonly body?: unknown
}

export interface ServiceAccountsApiDeps {
  readonly store: ServiceAccountStore
  /** What scopes grant, under the configured admin scope. */
  readonly grants: Grants
  /** The AgentOS line whose list and revoke rules apply (SA-6). */
  readonly line: AgentOsLine
  /** `auth.user_isolation`. */
  readonly userIsolation: boolean
  readonly logger: Logger
  /** Called with the token hash of a revoked account, so this replica stops accepting it at once. */
  readonly onRevoked: (tokenHash: string) => void
  readonly now?: () => number
}

/** The request a change came in, as the access log names it. */
export type RequestOrigin = Pick<RequestClient, 'clientAddress' | 'requestId'>

const DAY_SECONDS = 86_400
const MANAGE_AUTHENTICATION = 'Authentication is required to manage service accounts.'

/**
 * `/service-accounts`, served by the gateway itself (MINT-1, SA-2, SA-3): mint, list, revoke,
 * with AgentOS's check order and texts. Route scopes were already enforced by the authorizer.
 */
export class ServiceAccountsApi {
  readonly #deps: ServiceAccountsApiDeps
  readonly #now: () => number

  constructor(deps: ServiceAccountsApiDeps) {
    this.#deps = deps
    this.#now = deps.now ?? Date.now
  }

  /** MINT-1: 422 → 400 invalid → 400 privileged → 401/403 caller → 409 name → 201. */
  async mint(principal: Principal, body: unknown, origin: RequestOrigin): Promise<ApiResponse> {
    const parsed = parseMintRequest(body)
    if (!parsed.ok)
      throw new GatewayError('VALIDATION_FAILED', parsed.issues, {
        reason: 'service_accounts.validation',
      })
    const request = parsed.value
    const adminScope = this.#deps.grants.adminScope
    const scopes = request.scopes ?? DEFAULT_TOKEN_SCOPES
    const invalid = invalidScopes(scopes, adminScope)
    if (invalid.length > 0)
      throw badRequest(`Invalid scope(s): ${invalid.join(', ')}`, 'service_accounts.invalid_scope')
    const privileged = privilegedScopes(scopes, adminScope)
    if (privileged.length > 0 && !request.allowPrivilegedScopes) {
      throw badRequest(
        `Privileged scope(s) require allow_privileged_scopes=true: ${privileged.join(', ')}. Privileged tokens must be deliberate, never accidental.`,
        'service_accounts.privileged',
      )
    }
    if (principal.scopes === null) {
      if (!principal.authenticated) {
        throw new GatewayError(
          'CREDENTIALS_MISSING',
          'JWT authentication is required to mint a service account.',
          {
            reason: 'service_accounts.anonymous',
          },
        )
      }
    } else {
      const missing = ungrantableScopes(principal.scopes, scopes, adminScope)
      if (missing.length > 0) {
        throw new GatewayError(
          'ACCESS_DENIED',
          `Cannot grant scope(s) you do not hold: ${missing.join(', ')}`,
          {
            reason: 'service_accounts.subset',
          },
        )
      }
    }
    const store = this.#deps.store
    if ((await this.#store(() => store.findActiveByName(request.name))) !== null)
      throw conflict(request.name)

    const nowMs = this.#now()
    const now = Math.floor(nowMs / 1000)
    const minted = mintToken()
    try {
      const record = await this.#store(() =>
        store.create(
          {
            id: randomUUID(),
            name: request.name,
            userId: principal.userId,
            tokenHash: minted.hash,
            tokenPrefix: minted.prefix,
            scopes: [...scopes],
            createdAt: now,
            expiresAt: request.neverExpires ? null : now + request.expiresInDays * DAY_SECONDS,
            createdBy: principal.userId,
          },
          auditDraft(principal, origin, nowMs, { privileged: privileged.length > 0 }),
        ),
      )
      this.#deps.logger.info(
        { service_account: record.name, id: record.id, created_by: record.createdBy },
        'service account minted',
      )
      return { status: 201, body: { ...accountResponse(record), token: minted.token } }
    } catch (error) {
      if (error instanceof NameConflictError) throw conflict(request.name)
      if (error instanceof GatewayError) throw error
      throw new GatewayError('INTERNAL', 'Could not create service account', {
        cause: error,
        reason: 'service_accounts.create',
      })
    }
  }

  /**
   * SA-2, with Portcullis's rule that listing always needs a credential able to manage accounts;
   * in 3.0 filtered by owner (SA-6).
   */
  async list(principal: Principal, query: URLSearchParams): Promise<ApiResponse> {
    this.#assertManager(principal, 'service_accounts:read')
    const parsed = parseListParams(query)
    if (!parsed.ok)
      throw new GatewayError('VALIDATION_FAILED', parsed.issues, {
        reason: 'service_accounts.validation',
      })
    const params = parsed.value
    const visibleTo = this.#visible(principal)
    const listing = visibleTo === undefined ? params : { ...params, visibleTo }
    const result = await this.#store(() => this.#deps.store.list(listing))
    return page(result.rows.map(accountResponse), result.total, params)
  }

  /**
   * The audit events the caller may read, newest first, filtered and paged as the query says:
   * listing's authorization, and on an owner-scoped line (SA-6) only events of the accounts the
   * caller's listing shows, plus the account-less ones it caused.
   */
  async events(principal: Principal, query: URLSearchParams): Promise<ApiResponse> {
    this.#assertManager(principal, 'service_accounts:read')
    const params = this.#eventParams(query, true)
    const visibleTo = this.#visible(principal)
    return this.#eventPage(visibleTo === undefined ? params : { ...params, visibleTo }, params)
  }

  /**
   * One account's audit events, newest first: for whoever may list the account (SA-6: another
   * owner's account is not found); a revoked account's events stay readable.
   */
  async accountEvents(
    principal: Principal,
    id: string,
    query: URLSearchParams,
  ): Promise<ApiResponse> {
    this.#assertManager(principal, 'service_accounts:read')
    const params = this.#eventParams(query, false)
    const visible = this.#visible(principal)
    const record = await this.#store(() => this.#deps.store.findById(id))
    if (record === null) throw accountNotFound(id)
    assertMayRead(record, visible)
    return this.#eventPage({ ...params, accountId: record.id }, params)
  }

  #eventParams(query: URLSearchParams, withAccount: boolean) {
    const parsed = parseEventParams(query, withAccount)
    if (!parsed.ok)
      throw new GatewayError('VALIDATION_FAILED', parsed.issues, {
        reason: 'service_accounts.validation',
      })
    return parsed.value
  }

  async #eventPage(query: EventQuery, params: PageParams): Promise<ApiResponse> {
    const result = await this.#store(() => this.#deps.store.listEvents(query))
    return page(result.rows.map(eventResponse), result.total, params)
  }

  /**
   * SA-3: 204 for active and already revoked accounts, 404 for unknown ids; in 3.0 only the
   * caller's own accounts (SA-6).
   */
  async revoke(principal: Principal, id: string, origin: RequestOrigin): Promise<ApiResponse> {
    this.#assertManager(principal, 'service_accounts:delete')
    const visible = this.#visible(principal)
    const store = this.#deps.store
    const record = await this.#store(() => store.findById(id))
    if (record === null) throw accountNotFound(id)
    assertMayRevoke(record, visible)
    if (record.revokedAt === null) {
      const nowMs = this.#now()
      const outcome = await this.#store(() =>
        store.revoke(id, Math.floor(nowMs / 1000), auditDraft(principal, origin, nowMs, {})),
      )
      if (outcome === 'not_found') {
        throw new GatewayError('INTERNAL', 'Could not revoke service account', {
          reason: 'service_accounts.revoke',
        })
      }
      this.#deps.logger.info({ service_account: record.name, id }, 'service account revoked')
    }
    this.#deps.onRevoked(record.tokenHash)
    return { status: 204 }
  }

  /**
   * Listing and revoking need a credential (anonymous → 401) with the route's scope, the admin
   * scope, or the security key's unscoped root, whatever the JWT authorization switch says.
   */
  #assertManager(principal: Principal, scope: string): void {
    if (!principal.authenticated) {
      throw new GatewayError('CREDENTIALS_MISSING', MANAGE_AUTHENTICATION, {
        reason: 'service_accounts.anonymous',
      })
    }
    const grants = this.#deps.grants
    if (principal.scopes === null || isAdmin(principal, grants.adminScope)) return
    if (!grants.satisfies(principal.scopes, scope, undefined)) {
      throw new GatewayError(
        'ACCESS_DENIED',
        `Insufficient permissions. Required scope(s): ${scope}`,
        {
          reason: 'service_accounts.scope',
        },
      )
    }
  }

  #visible(principal: Principal): VisibleAccounts | undefined {
    return visibleAccounts(principal, {
      line: this.#deps.line,
      adminScope: this.#deps.grants.adminScope,
      userIsolation: this.#deps.userIsolation,
    })
  }

  async #store<T>(operation: () => Promise<T>): Promise<T> {
    try {
      return await operation()
    } catch (error) {
      if (error instanceof StoreUnavailableError) {
        throw new GatewayError(
          'STORE_UNAVAILABLE',
          'Service accounts are temporarily unavailable',
          {
            cause: error,
            reason: 'service_accounts.store_unavailable',
            headers: { 'Retry-After': String(STORE_RETRY_AFTER_SECONDS) },
          },
        )
      }
      throw error
    }
  }
}

/** A listing's answer: AgentOS's `data` and `meta` envelope (SA-2). */
function page(data: unknown[], total: number, params: PageParams): ApiResponse {
  return {
    status: 200,
    body: {
      data,
      meta: {
        page: params.page,
        limit: params.limit,
        total_pages: Math.ceil(total / params.limit),
        total_count: total,
        search_time_ms: 0.0,
      },
    },
  }
}

/** The audit event's origin: who asked, from where, in which request. */
function auditDraft(
  principal: Principal,
  origin: RequestOrigin,
  occurredAt: number,
  details: AuditDetails,
): AuditDraft {
  return {
    id: randomUUID(),
    occurredAt,
    actorKind: principal.kind,
    actor: principal.userId,
    clientAddress: origin.clientAddress,
    requestId: origin.requestId,
    details,
  }
}

function badRequest(
  detail: string,
  reason: 'service_accounts.invalid_scope' | 'service_accounts.privileged',
): GatewayError {
  return new GatewayError('BAD_REQUEST', detail, { reason })
}

function conflict(name: string): GatewayError {
  return new GatewayError(
    'CONFLICT',
    `An active service account named '${name}' already exists. Revoke it first to rotate.`,
    {
      reason: 'service_accounts.conflict',
    },
  )
}
