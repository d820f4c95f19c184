import { loadLocalKeys } from './auth/jwt/local-keys.js'
import { checkRemoteEndpoint } from './auth/jwt/remote/open-remote-jwks.js'
import { summarizeAuthMode } from './config/auth-mode.js'
import type { Config } from './config/schema.js'
import { loadSigningKeys } from './identity/signing-keys.js'
import type { Logger } from './logger.js'
import { StartupError } from './startup-error.js'

/**
 * What serve builds from a valid configuration before it opens the store or binds a port, with the
 * same code, built and released again: the JWT keys (parsed and fitted to the algorithm), the JWKS
 * file's keys, the remote key set's address policy, the identity-assertion signing keys. `serve`
 * runs it first and `config check` runs it too, so that both refuse a configuration with the same
 * line (a StartupError, exit 2). What works but surprises is logged as a warning on `logger`.
 */
export async function checkStartup(config: Config, logger: Logger): Promise<void> {
  try {
    const auth = config.auth
    if (summarizeAuthMode(auth).jwtConfigured && auth.validate) {
      const { file } = await loadLocalKeys(auth, { logger }, false)
      file?.close()
      await checkRemoteEndpoint(auth, logger)
    }
    const assertion = config.identity.assertion
    if (assertion.enabled && assertion.signing_keys_file !== null) {
      await loadSigningKeys(assertion.signing_keys_file, assertion.algorithm)
    }
  } catch (error) {
    throw configCannotBeApplied(error)
  }
}

/** A configuration that passed validation but cannot be built: exit 2, with what failed. */
export function configCannotBeApplied(error: unknown): StartupError {
  const message = error instanceof Error ? error.message : String(error)
  return new StartupError('config', `the configuration cannot be applied: ${message}`, {
    cause: error,
  })
}
