import type { Config } from './schema.js'

/** What the `/info` auth_mode field reports, as AgentOS does. */
export type AuthMode = 'jwt' | 'security_key' | 'none'

/** Mode `none` not asked for: most often a secret that was not mounted (OS_SECURITY_KEY empty). */
export const NO_CREDENTIAL_SOURCE =
  'auth: no credential source, so requests without one would reach the upstream: set a security key (auth.security_key, OS_SECURITY_KEY) or a JWT source (auth.verification_keys, JWT_VERIFICATION_KEY, auth.jwks_file, JWT_JWKS_FILE, auth.jwks_url, auth.oidc_issuer); to run open on purpose, set auth.open: true (PORTCULLIS_AUTH_OPEN=true)'

export interface AuthModeSummary {
  readonly mode: AuthMode
  /** A JWT source exists: keys, a JWKS file or URL, an OIDC issuer, or validate: false. JWT then wins over the security key. */
  readonly jwtConfigured: boolean
  /** JWT RBAC: explicit `authorization`, or implied by `scope_mappings` when unset. */
  readonly authorizationEnabled: boolean
  /**
   * Mode `none` that `auth.open` asked for: requests without a credential are forwarded. Mode
   * `none` without it is refused (a missing secret must not open the gateway).
   */
  readonly open: boolean
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
> & { readonly open?: boolean }

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
  return { mode, jwtConfigured, authorizationEnabled, open: mode === 'none' && auth.open === true }
}

/**
 * CONF-1, the credential-source rule: JWT authorization needs a JWT source; mode `none` needs
 * `auth.open`, and an open instance still needs the service-account store. The config loader
 * reports every problem under the key it names; the auth pipeline refuses to be built from a
 * config made in code that breaks the rule.
 */
export function credentialSourceProblems(
  summary: AuthModeSummary,
  sources: {
    /** `service_accounts.enabled` (the loader) or a service-account verifier (the pipeline). */
    readonly serviceAccounts: boolean
    /** The key that turned authorization on: `auth.scope_mappings` when only mappings did. */
    readonly authorizationKey: 'auth.authorization' | 'auth.scope_mappings'
  },
): string[] {
  const problems: string[] = []
  if (summary.authorizationEnabled && !summary.jwtConfigured) {
    problems.push(
      `${sources.authorizationKey}: JWT authorization requires a JWT verification source (auth.verification_keys, auth.jwks_file, auth.jwks_url, auth.oidc_issuer, JWT_VERIFICATION_KEY, JWT_JWKS_FILE or auth.validate: false); a service-account store or security key alone is not enough`,
    )
  }
  if (summary.mode === 'none' && !summary.open) {
    problems.push(NO_CREDENTIAL_SOURCE)
  } else if (summary.mode === 'none' && !sources.serviceAccounts) {
    problems.push(
      'auth: at least one credential source is required: JWT keys or a JWKS file, the service-account store (service_accounts.enabled), or a security key',
    )
  }
  return problems
}

/** The mode as the gateway's own signals say it (logs, /readyz): `open` rather than AgentOS's `none`. */
export function describeAuthMode(
  summary: AuthModeSummary,
): 'jwt' | 'security_key' | 'open' | 'none' {
  return summary.open ? 'open' : summary.mode
}
