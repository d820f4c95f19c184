import type { Principal, PrincipalKind } from '../../../src/principal.js'
import { GatewayError } from '../../../src/errors.js'
import type { Authorization } from '../../../src/policy/authorizer.js'
import type { AgentOsLine } from '../../../src/policy/catalogue/index.js'
import { CatalogueAuthorizer } from '../../helpers/catalogue.js'

export const ADMIN = 'os:admin'

/** The internal scheduler token's fixed scopes (AUTH-7). */
export const SCHEDULER_SCOPES: readonly string[] = [
  'agents:read',
  'agents:run',
  'teams:read',
  'teams:run',
  'workflows:read',
  'workflows:run',
  'schedules:read',
  'schedules:write',
  'schedules:delete',
]

export function principal(
  kind: PrincipalKind,
  scopes: readonly string[] | null,
  authorizationEnabled = true,
): Principal {
  return {
    kind,
    authenticated: kind !== 'anonymous',
    userId: kind === 'service_account' ? 'sa:test' : 'alice',
    sessionId: null,
    scopes,
    authorizationEnabled,
    expiresAt: null,
  }
}

/** A JWT caller under fixture J (authorization on). */
export function jwt(...scopes: string[]): Principal {
  return principal('jwt', scopes)
}

export function authorizer(
  scopeMappings: Record<string, string[]> | null = null,
  options: {
    adminScope?: string
    denyUnmapped?: boolean
    line?: AgentOsLine
    userIsolation?: boolean
  } = {},
): CatalogueAuthorizer {
  return new CatalogueAuthorizer({
    ...options,
    scopeMappings,
    adminScope: options.adminScope ?? ADMIN,
  })
}

/** What a decision looks like from outside: allowed with a listing filter, or the 403 text. */
export type Outcome =
  | { readonly allowed: true; readonly ids: 'all' | string[] | undefined }
  | { readonly allowed: false; readonly status: number; readonly detail: unknown }

export function outcome(run: () => Authorization): Outcome {
  try {
    const { accessibleIds } = run()
    const ids =
      accessibleIds === undefined || accessibleIds === 'all'
        ? accessibleIds
        : [...accessibleIds].sort()
    return { allowed: true, ids }
  } catch (error) {
    if (!(error instanceof GatewayError)) throw error
    return { allowed: false, status: error.status, detail: error.detail }
  }
}

export function decide(
  who: Principal,
  method: string,
  path: string,
  gate: CatalogueAuthorizer = authorizer(),
): Outcome {
  return outcome(() => gate.authorize(who, method, path))
}

export function denied(scopes: string): Outcome {
  return {
    allowed: false,
    status: 403,
    detail: `Insufficient permissions. Required scope(s): ${scopes}`,
  }
}

export function deniedWith(detail: string): Outcome {
  return { allowed: false, status: 403, detail }
}

export const allowed = (ids?: 'all' | string[]): Outcome => ({ allowed: true, ids })
