import type { Config } from './schema.js'

/** What the `/info` auth_mode field reports, as AgentOS does. */
export type AuthMode = 'jwt' | 'security_key' | 'none'

export interface AuthModeSummary {
  readonly mode: AuthMode
  /** A JWT source exists: keys, a JWKS file or URL, an OIDC issuer, or validate: false. JWT then wins over the security key. */
  readonly jwtConfigured: boolean
  /** JWT RBAC: explicit `authorization`, or implied by `scope_mappings` when unset. */
  readonly authorizationEnabled: boolean
}

type AuthSettings = Pick<
  Config['auth'],
  | 'verification_keys'
  | 'jwks_file'
  | 'jwks_url'
  | 'oidc_issuer'
  | 'validate'
  | 'authorization'
  | 'scope_mappings'
  | 'security_key'
>

export function summarizeAuthMode(auth: AuthSettings): AuthModeSummary {
  const jwtConfigured =
    (auth.verification_keys?.length ?? 0) > 0 ||
    auth.jwks_file !== null ||
    auth.jwks_url !== null ||
    auth.oidc_issuer !== null ||
    !auth.validate
  const authorizationEnabled = auth.authorization ?? auth.scope_mappings !== null
  const mode: AuthMode = jwtConfigured
    ? 'jwt'
    : auth.security_key !== null
      ? 'security_key'
      : 'none'
  return { mode, jwtConfigured, authorizationEnabled }
}
