import type { Config } from '../../config/schema.js'
import type { Logger } from '../../logger.js'
import type { Metrics } from '../../metrics.js'
import type { Clock } from '../../clock.js'
import { JwksFile } from './jwks-file.js'
import { loadStaticKeys, type VerificationKey } from './key-set.js'

export interface LocalKeyDependencies {
  readonly logger: Logger
  readonly metrics?: Metrics | undefined
  readonly clock?: Clock | undefined
  readonly readFile?: ((path: string) => Promise<string>) | undefined
  readonly jwksDebounceMs?: number | undefined
}

/** The keys the configuration holds or names on this machine: static keys and the JWKS file. */
export interface LocalKeys {
  readonly staticKeys: readonly VerificationKey[]
  readonly file: JwksFile | undefined
}

/**
 * Parses the static keys and reads the JWKS file (watched when `watch`), each checked against the
 * algorithm; throws a plain Error naming the key or file when the configuration cannot work,
 * among them when no key would be usable and no remote key set may bring one. The JWT verifier
 * and the start-up check (`config check`) both load keys here.
 */
export async function loadLocalKeys(
  auth: Config['auth'],
  deps: LocalKeyDependencies,
  watch: boolean,
): Promise<LocalKeys> {
  const warn = (details: Record<string, unknown>, message: string): void => {
    deps.logger.warn(details, message)
  }
  const staticKeys = loadStaticKeys(auth.verification_keys ?? [], auth.algorithm, warn)
  const file =
    auth.jwks_file === null
      ? undefined
      : await JwksFile.open({
          path: auth.jwks_file,
          algorithm: auth.algorithm,
          cooldownSeconds: auth.jwks_reload_cooldown_seconds,
          watch,
          logger: deps.logger,
          metrics: deps.metrics,
          clock: deps.clock,
          readFile: deps.readFile,
          debounceMs: deps.jwksDebounceMs,
        })
  // A remote key set may still be loading (or its provider down): it is retried, never fatal.
  const remote = auth.jwks_url !== null || auth.oidc_issuer !== null
  if (!remote && staticKeys.length === 0 && (file?.keys.count ?? 0) === 0) {
    file?.close()
    throw new Error(
      file === undefined
        ? 'auth: validate is true but no JWT verification key is usable: set auth.verification_keys, JWT_VERIFICATION_KEY, or a JWKS file with keys for the configured algorithm'
        : `auth.jwks_file: ${file.path} holds no key usable with auth.algorithm ${auth.algorithm} (entries of another key type, curve or "alg" are skipped), and no other verification key is configured`,
    )
  }
  return { staticKeys, file }
}
