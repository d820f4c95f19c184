import { summarizeAuthMode } from './auth-mode.js'
import type { Config } from './schema.js'

/**
 * What a valid configuration does that an operator may not intend. `config check` prints these
 * (`--strict` makes them fatal) and the gateway logs them when it starts and on every reload.
 */
export function configWarnings(config: Config): string[] {
  const warnings: string[] = []
  const summary = summarizeAuthMode(config.auth)
  if (summary.open) {
    warnings.push(
      'auth.open: true: the gateway runs open (no JWT source, no security key); requests without a credential are forwarded to the upstream, only service-account tokens are checked',
    )
  } else if (config.auth.open) {
    warnings.push(
      'auth.open: true has no effect: a JWT source or a security key is configured, so every request needs a credential',
    )
  }
  if (!config.auth.validate) {
    warnings.push(
      'auth.validate: false: JWT signatures, expiry and audience are not checked; anyone can forge a token (development only)',
    )
  }
  return warnings
}
