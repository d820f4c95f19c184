import type { AuthModeSummary } from '../config/auth-mode.js'
import { GatewayError } from '../errors.js'
import { ANONYMOUS, type Principal } from '../principal.js'
import { missingCredentialError, type CredentialSettings } from './extract-credential.js'

/**
 * Where a credential is used. AgentOS's REST middleware and its workflow WebSocket differ in one
 * thing an open instance does: REST ignores a service-account token it cannot verify (PAT-6), the
 * socket reports it in an `auth_error` frame.
 */
export type CredentialUse = 'rest' | 'workflow_socket'

/**
 * What the configured auth mode answers where no verifier has: a request without a credential, a
 * credential no verifier claims, and a refused credential on an open instance. One object for
 * HTTP requests, upgrades and the workflow socket.
 */
export class AuthModePolicy {
  readonly #mode: AuthModeSummary
  /**
   * The 401 of a closed instance for a request without a credential: the same answer every time,
   * built once (a flood of credential-less requests allocates no error).
   */
  readonly #missing: GatewayError<'CREDENTIALS_MISSING'> | undefined

  constructor(mode: AuthModeSummary, credentials: CredentialSettings) {
    this.#mode = mode
    this.#missing = mode.open
      ? undefined
      : missingCredentialError(credentials, mode.mode === 'jwt' ? 'jwt' : 'security_key')
  }

  /** Open (`auth.open`): no JWT source and no security key; anonymous callers pass. */
  get anonymousAllowed(): boolean {
    return this.#mode.open
  }

  /** No credential: anonymous on an open instance, else the 401 in the mode's wording. */
  withoutCredential(): Principal | GatewayError<'CREDENTIALS_MISSING'> {
    return this.#missing ?? ANONYMOUS
  }

  /** A credential no verifier of the chain claims: an open instance looks at nothing else. */
  unclaimed(): Principal {
    if (this.anonymousAllowed) return ANONYMOUS
    throw new GatewayError('TOKEN_INVALID', 'Invalid authentication token', {
      reason: 'credential.unsupported',
    })
  }

  /** The internal scheduler token is no credential for the workflow socket, as in AgentOS. */
  accepts(principal: Principal, use: CredentialUse): Principal {
    if (use === 'workflow_socket' && principal.kind === 'scheduler') {
      throw new GatewayError('TOKEN_INVALID', 'Invalid token', { reason: 'scheduler.websocket' })
    }
    return principal
  }

  /**
   * A verifier refused the credential: the refusal stands, except that an open instance's REST
   * path ignores a token it cannot verify (a verified token's scopes still apply).
   */
  refused(error: unknown, use: CredentialUse): Principal {
    if (this.ignoresRefusal(use) && error instanceof GatewayError) return ANONYMOUS
    throw error
  }

  /** Whether a verifier's refusal is ignored for this use (an open instance's REST path). */
  ignoresRefusal(use: CredentialUse): boolean {
    return this.anonymousAllowed && use === 'rest'
  }
}
