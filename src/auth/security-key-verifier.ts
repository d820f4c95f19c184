import type { Config } from '../config/schema.js'
import { GatewayError } from '../errors.js'
import { SecretMatcher } from './constant-time.js'
import type { Credential } from './credential.js'
import type { Principal } from '../principal.js'
import type { Verifier } from './verifier.js'

/** An unscoped root: no scopes, no user id, RBAC and route gates off (AUTH-6, AUTH-1). */
const SECURITY_KEY_PRINCIPAL: Principal = Object.freeze({
  kind: 'security_key',
  authenticated: true,
  userId: null,
  sessionId: null,
  scopes: null,
  authorizationEnabled: false,
  expiresAt: null,
})

const MISMATCH = new GatewayError('TOKEN_INVALID', 'Invalid authentication token', {
  reason: 'security_key.mismatch',
})

/**
 * The static OS security key (AUTH-6). The pipeline uses it only when no JWT source is
 * configured and routes service-account and scheduler tokens elsewhere first; this verifier only
 * compares, so every other credential, JWTs included, is a 401.
 */
export class SecurityKeyVerifier implements Verifier {
  readonly kind = 'security_key'
  readonly #key: SecretMatcher

  constructor(auth: Pick<Config['auth'], 'security_key'>) {
    if (auth.security_key === null || auth.security_key === '') {
      throw new Error('SecurityKeyVerifier needs auth.security_key')
    }
    this.#key = new SecretMatcher(auth.security_key)
  }

  verify(credential: Credential): Principal | GatewayError {
    return this.#key.matches(credential.token) ? SECURITY_KEY_PRINCIPAL : MISMATCH
  }
}
