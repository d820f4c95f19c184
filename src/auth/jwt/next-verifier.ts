import type { AuthModeSummary } from '../../config/auth-mode.js'
import type { Config } from '../../config/schema.js'
import { JwtVerifier, type JwtVerifierDependencies } from './jwt-verifier.js'

/** The JWT verifier of the configuration being replaced, with the `auth` section it was built from. */
export interface PreviousJwt {
  readonly auth: Config['auth']
  readonly verifier: JwtVerifier | undefined
}

/**
 * The JWT verifier of a new configuration. With the same `auth` section as the previous one it is
 * the previous verifier (`reused`: still owned by the previous configuration), its JWKS file
 * re-read and its remote key set refetched (the SIGHUP reload), so verified tokens and the
 * unknown-kid cooldown carry over; with other `auth` settings, a remote key set whose own settings
 * are unchanged is shared, never fetched anew. Undefined when no JWT source is configured.
 */
export async function nextJwtVerifier(
  auth: Config['auth'],
  mode: AuthModeSummary,
  deps: JwtVerifierDependencies,
  previous?: PreviousJwt,
): Promise<{ readonly verifier: JwtVerifier | undefined; readonly reused: boolean }> {
  const kept = previous?.verifier
  if (kept !== undefined && JSON.stringify(previous?.auth) === JSON.stringify(auth)) {
    await kept.reload()
    return { verifier: kept, reused: true }
  }
  if (!mode.jwtConfigured) return { verifier: undefined, reused: false }
  return { verifier: await JwtVerifier.create(auth, deps, kept), reused: false }
}
