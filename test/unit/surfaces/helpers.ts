import type { Principal } from '../../../src/principal.js'

export {
  serviceAccountPrincipal as servicePrincipal,
  SECURITY_KEY_PRINCIPAL as SECURITY_KEY,
} from '../../helpers/principals.js'

/** Principals as the verifiers build them, for the pure surface functions. */
export function jwtPrincipal(
  scopes: readonly string[],
  userId: string | null = 'u1',
  authorizationEnabled = true,
): Principal {
  return {
    kind: 'jwt',
    authenticated: true,
    userId,
    sessionId: null,
    scopes,
    authorizationEnabled,
    expiresAt: null,
  }
}

export const ADMIN = 'os:admin'
