import { summarizeAuthMode } from '../../config/auth-mode.js'
import type { Config } from '../../config/schema.js'
import type { Logger } from '../../logger.js'
import type { Metrics } from '../../metrics.js'
import { credentialDigest, isServiceToken, type Credential } from '../credential.js'
import type { Principal } from '../../principal.js'
import { NOT_RESPONSIBLE, type Verifier, type VerifierAnswer } from '../verifier.js'
import { systemClock, type Clock } from '../../clock.js'
import { parseCompactToken } from './compact-token.js'
import {
  checkAudience,
  principalFromClaims,
  rejectReservedSubject,
  type Payload,
} from './jwt-claims.js'
import { invalidToken } from './jwt-errors.js'
import { verifyCompactJws } from './jws-signature.js'
import { checkUserIdClaim } from './registered-claims.js'
import type { JwksReloadResult } from './jwks-file.js'
import { JwksSources } from './jwks-sources.js'
import { verifyInKeyOrder, type KeyOrder, type VerifyJws } from './key-order.js'
import type { VerificationKey } from './key-set.js'
import { loadLocalKeys } from './local-keys.js'
import { openRemoteJwks, type RemoteJwksDependencies } from './remote/open-remote-jwks.js'
import type { RemoteJwks, RemoteJwksHealth } from './remote/remote-jwks.js'
import { decodeUnverified } from './unverified-token.js'
import { VerifiedTokenCache } from './verified-token-cache.js'

export interface JwtVerifierDependencies extends RemoteJwksDependencies {
  readonly logger: Logger
  readonly metrics?: Metrics | undefined
  readonly clock?: Clock | undefined
  readonly verifyJws?: VerifyJws | undefined
  /** Reads the JWKS file (tests count reads). */
  readonly readFile?: ((path: string) => Promise<string>) | undefined
  readonly jwksDebounceMs?: number | undefined
}

/**
 * JWTs as AgentOS's JWT middleware checks them (JWT-7 to JWT-12), with jose. Responsible
 * for every credential except service-account tokens; a failure is always a thrown 401.
 */
export class JwtVerifier implements Verifier {
  readonly kind = 'jwt'
  readonly #auth: Config['auth']
  readonly #keyOrder: KeyOrder
  readonly #expectedAudience: readonly string[] | undefined
  readonly #authorizationEnabled: boolean
  readonly #cache: VerifiedTokenCache
  readonly #clock: Clock
  readonly #logger: Logger

  private constructor(
    auth: Config['auth'],
    deps: JwtVerifierDependencies,
    staticKeys: readonly VerificationKey[],
    jwks: JwksSources | undefined,
  ) {
    this.#auth = auth
    this.#keyOrder = {
      algorithm: auth.algorithm,
      jwks,
      staticKeys,
      verifyJws: deps.verifyJws ?? verifyCompactJws,
      logger: deps.logger,
    }
    this.#expectedAudience = expectedAudience(auth)
    this.#authorizationEnabled = summarizeAuthMode(auth).authorizationEnabled
    this.#clock = deps.clock ?? systemClock
    this.#cache = new VerifiedTokenCache(auth.jwt_cache_max_entries, this.#clock, deps.metrics)
    this.#logger = deps.logger
  }

  /**
   * Loads the keys; throws a plain Error (for the startup report) when the config cannot work. A
   * remote key set whose settings are unchanged from `previous` (a reload) is shared with it.
   */
  static async create(
    auth: Config['auth'],
    deps: JwtVerifierDependencies,
    previous?: JwtVerifier,
  ): Promise<JwtVerifier> {
    if (!auth.validate) {
      deps.logger.warn(
        'auth.validate is false: JWT signatures, expiry and audience are NOT checked',
      )
      return new JwtVerifier(auth, deps, [], undefined)
    }
    if (auth.verify_audience && (expectedAudience(auth)?.length ?? 0) === 0) {
      throw new Error('auth.verify_audience: needs auth.audience or auth.service_id')
    }
    const { staticKeys, file } = await loadLocalKeys(auth, deps, auth.jwks_watch)
    let remote: Awaited<ReturnType<typeof openRemoteJwks>>
    try {
      remote = await openRemoteJwks(auth, deps, previous?.remoteKeySet)
    } catch (error) {
      file?.close()
      throw error
    }
    const sources =
      remote === undefined && file === undefined ? undefined : new JwksSources(remote, file)
    return new JwtVerifier(auth, deps, staticKeys, sources)
  }

  /** A token in the verified cache is answered at once; a refusal made before any key is thrown. */
  verify(credential: Credential): VerifierAnswer {
    const token = credential.token
    if (isServiceToken(token)) return NOT_RESPONSIBLE
    const credentialHash = credentialDigest(token)
    const authorizationEnabled = this.#authorizationEnabled
    if (!this.#auth.validate) {
      return decodeUnverified(token, this.#auth, { credentialHash, authorizationEnabled })
    }

    const now = this.#clock.now()
    const generation = this.#keyOrder.jwks?.generationAt(now) ?? 0
    // Only a token that passed every check below is cached: the same text passes them again, so
    // a hit skips the parse too.
    const cached = this.#cache.get(credentialHash, generation)
    if (cached !== undefined) {
      if (this.#logger.isLevelEnabled('debug')) {
        this.#logger.debug({ credential: 'jwt', cache: 'hit' }, 'auth: JWT from the verified cache')
      }
      return cached
    }
    const { header } = parseCompactToken(token, this.#auth.max_token_bytes)
    // Checked before any key lookup, so a forged header never triggers a JWKS re-read.
    if (header.alg !== this.#auth.algorithm) {
      throw invalidToken('jwt.algorithm', 'The specified alg value is not allowed')
    }
    return this.#verifySignature(token, header, { credentialHash, generation, now })
  }

  /** At once when the key order answered at once (static keys, node:crypto), else a promise. */
  #verifySignature(
    token: string,
    header: { readonly alg?: string; readonly kid?: string },
    at: VerifiedAt,
  ): Principal | Promise<Principal> {
    const payload = verifyInKeyOrder(this.#keyOrder, token, header.kid, at.now)
    return payload instanceof Promise
      ? payload.then((claims) => this.#principalOf(claims, header, at))
      : this.#principalOf(payload, header, at)
  }

  /** The checks after the signature and the registered claims, then the cached principal. */
  #principalOf(
    payload: Payload,
    header: { readonly alg?: string; readonly kid?: string },
    at: VerifiedAt,
  ): Principal {
    const { credentialHash, generation } = at
    if (this.#expectedAudience !== undefined) {
      checkAudience(payload, this.#auth.audience_claim, this.#expectedAudience)
    }
    checkUserIdClaim(payload, this.#auth.user_id_claim)
    rejectReservedSubject(payload, this.#auth.user_id_claim)
    const principal = principalFromClaims(payload, this.#auth, {
      credentialHash,
      authorizationEnabled: this.#authorizationEnabled,
      verified: true,
    })
    this.#cache.set(credentialHash, generation, principal)
    if (this.#logger.isLevelEnabled('debug')) {
      this.#logger.debug(
        { credential: 'jwt', cache: 'miss', alg: header.alg, kid: header.kid },
        'auth: JWT verified',
      )
    }
    return principal
  }

  /**
   * The SIGHUP action: re-reads the JWKS file and refetches the remote key set (conditionally);
   * the file's result, undefined without one.
   */
  async reload(): Promise<JwksReloadResult | undefined> {
    const sources = this.#keyOrder.jwks
    const [result] = await Promise.all([
      sources?.file?.reload('signal'),
      sources?.remote?.refresh('signal'),
    ])
    return result
  }

  /** The remote key set this verifier uses, if any (a reload may share it). */
  get remoteKeySet(): RemoteJwks | undefined {
    return this.#keyOrder.jwks?.remote
  }

  /** The remote key set's readiness (/readyz), undefined without one. */
  remoteKeySetHealth(): RemoteJwksHealth | undefined {
    return this.#keyOrder.jwks?.remote?.health(this.#clock.now())
  }

  /** Stops watching the JWKS file and releases the remote key set. */
  close(): void {
    this.#keyOrder.jwks?.close()
  }
}

/** What a verification started from: the token's hash, the key set's generation, the time. */
interface VerifiedAt {
  readonly credentialHash: string
  readonly generation: number
  readonly now: number
}

/** The audiences a token must name when `verify_audience` is on: `audience`, else `service_id`. */
function expectedAudience(auth: Config['auth']): readonly string[] | undefined {
  if (!auth.verify_audience || !auth.validate) return undefined
  if (auth.audience !== null) {
    return typeof auth.audience === 'string' ? [auth.audience] : [...auth.audience]
  }
  return auth.service_id === null ? [] : [auth.service_id]
}
