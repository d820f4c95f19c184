import type { Principal } from '../../src/principal.js'

/** A service account's principal as the verifier builds it (AUTH-1), for pure functions. */
export function serviceAccountPrincipal(
  name: string,
  scopes: readonly string[] = ['agents:run'],
): Principal {
  return {
    kind: 'service_account',
    authenticated: true,
    userId: `sa:${name}`,
    sessionId: null,
    scopes,
    authorizationEnabled: true,
    serviceAccount: { id: `id-${name}`, name },
    expiresAt: null,
    credentialHash: `hash-${name}`,
  }
}

/** The security key's principal: an unscoped root. */
export const SECURITY_KEY_PRINCIPAL: Principal = {
  kind: 'security_key',
  authenticated: true,
  userId: null,
  sessionId: null,
  scopes: null,
  authorizationEnabled: false,
  expiresAt: null,
}
