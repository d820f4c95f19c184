import { summarizeAuthMode } from '../config/auth-mode.js'
import type { Config } from '../config/schema.js'
import { SecretMatcher } from './constant-time.js'
import type { Credential } from './credential.js'
import type { Principal } from '../principal.js'
import { NOT_RESPONSIBLE, type Verifier } from './verifier.js'

export const SCHEDULER_USER_ID = '__scheduler__'

type SchedulerSettings = Pick<
  Config['auth'],
  | 'internal_service_token'
  | 'verification_keys'
  | 'jwks_file'
  | 'jwks_url'
  | 'oidc_issuer'
  | 'validate'
  | 'authorization'
  | 'scope_mappings'
  | 'security_key'
>

/**
 * The internal scheduler token (AUTH-7). Responsible only for a credential equal to the
 * configured token; without one configured it is never responsible. Its scopes are enforced only
 * when JWT authorization is on, as in AgentOS.
 */
export class SchedulerTokenVerifier implements Verifier {
  readonly kind = 'scheduler'
  readonly #token: SecretMatcher | null
  readonly #principal: Principal

  /** `scopes`: the line's fixed list (AUTH-7). */
  constructor(auth: SchedulerSettings, scopes: readonly string[]) {
    const token = auth.internal_service_token
    this.#token = token === null || token === '' ? null : new SecretMatcher(token)
    this.#principal = Object.freeze({
      kind: 'scheduler',
      authenticated: true,
      userId: SCHEDULER_USER_ID,
      sessionId: null,
      scopes: Object.freeze([...scopes]),
      authorizationEnabled: summarizeAuthMode(auth).authorizationEnabled,
      expiresAt: null,
    })
  }

  verify(credential: Credential): Principal | typeof NOT_RESPONSIBLE {
    if (this.#token === null || !this.#token.matches(credential.token)) return NOT_RESPONSIBLE
    return this.#principal
  }
}
