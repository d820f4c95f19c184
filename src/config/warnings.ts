import { summarizeAuthMode } from './auth-mode.js'
import type { Config } from './schema.js'

/**
 * What a valid configuration does that an operator may not intend. `config check` prints these
 * (`--strict` makes them fatal) and the gateway logs them when it starts and on every reload.
 */
export function configWarnings(config: Config): string[] {
  const warnings: string[] = []
  if (summarizeAuthMode(config.auth).mode === 'none') {
    warnings.push(
      'auth: no JWT source (auth.verification_keys, auth.jwks_file, auth.jwks_url, auth.oidc_issuer) and no security key (auth.security_key): the gateway runs open, requests without a credential are forwarded to the upstream',
    )
  }
  if (!config.auth.validate) {
    warnings.push(
      'auth.validate: false: JWT signatures, expiry and audience are not checked; anyone can forge a token (development only)',
    )
  }
  return warnings
}
