import type { Principal } from '../../../src/auth/principal.js'

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

export function servicePrincipal(name: string, scopes: readonly string[]): Principal {
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

export const SECURITY_KEY: Principal = {
  kind: 'security_key',
  authenticated: true,
  userId: null,
  sessionId: null,
  scopes: null,
  authorizationEnabled: false,
  expiresAt: null,
}

export const ADMIN = 'os:admin'
