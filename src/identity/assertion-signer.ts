import { SignJWT, type JSONWebKeySet, type JWTPayload } from 'jose'
import { BoundedCache } from '../bounded-cache.js'
import type { Principal } from '../principal.js'
import {
  generateSigningKey,
  loadSigningKeys,
  type AssertionAlgorithm,
  type SigningKey,
} from './signing-keys.js'

export interface AssertionSettings {
  readonly algorithm: AssertionAlgorithm
  readonly issuer: string
  readonly audience: string
  readonly lifetimeSeconds: number
  readonly rotationHours: number
  readonly signingKeysFile: string | null
}

export interface AssertionSignerOptions {
  /** Milliseconds since the epoch; injectable for tests. */
  readonly now?: () => number
  readonly cacheMaxEntries?: number
}

interface CachedAssertion {
  readonly token: string
  readonly issuedAt: number
  readonly expiresAt: number
}

// Verifiers' clocks differ; a retired key stays published this much longer than its tokens live.
const RETIRED_KEY_GRACE_MS = 60_000

/**
 * Signs short-lived identity assertions and publishes their verification keys. Generated keys
 * rotate every `rotationHours` without a gap: the next key is published a whole period before it
 * signs, and the retired key stays published until the last assertion it signed has expired.
 * Keys from `signingKeysFile` are shared by replicas: the first signs, all are published.
 */
export class AssertionSigner {
  readonly #settings: AssertionSettings
  readonly #now: () => number
  readonly #cache: BoundedCache<string, CachedAssertion>
  readonly #rotates: boolean
  readonly #published: SigningKey[]
  #current: SigningKey
  #currentSince: number
  #next: SigningKey | undefined
  #retired: { key: SigningKey; until: number } | undefined
  #refilling: Promise<void> | undefined

  private constructor(
    settings: AssertionSettings,
    keys: SigningKey[],
    options: AssertionSignerOptions,
  ) {
    this.#settings = settings
    this.#now = options.now ?? Date.now
    this.#cache = new BoundedCache({ max: options.cacheMaxEntries ?? 10_000 })
    this.#rotates = settings.signingKeysFile === null
    this.#current = keys[0] as SigningKey
    this.#currentSince = this.#now()
    this.#next = this.#rotates ? keys[1] : undefined
    this.#published = this.#rotates ? [] : keys
  }

  static async create(
    settings: AssertionSettings,
    options: AssertionSignerOptions = {},
  ): Promise<AssertionSigner> {
    const keys =
      settings.signingKeysFile === null
        ? await Promise.all([
            generateSigningKey(settings.algorithm),
            generateSigningKey(settings.algorithm),
          ])
        : await loadSigningKeys(settings.signingKeysFile, settings.algorithm)
    return new AssertionSigner(settings, keys, options)
  }

  /** The public JWKS document verifiers fetch (`/.well-known/jwks.json`). */
  jwks(): JSONWebKeySet {
    this.#rotateIfDue()
    if (!this.#rotates) return { keys: this.#published.map((key) => key.publicJwk) }
    const keys = [this.#current, this.#next, this.#retired?.key].filter((key) => key !== undefined)
    return { keys: keys.map((key) => key.publicJwk) }
  }

  /** The assertion for an authenticated principal, reused while more than half its life remains. */
  async assertionFor(principal: Principal): Promise<string> {
    this.#rotateIfDue()
    const now = this.#now()
    const cacheKey = assertionCacheKey(principal)
    const cached = this.#cache.get(cacheKey)
    if (cached !== undefined && cached.expiresAt - now > (cached.expiresAt - cached.issuedAt) / 2) {
      return cached.token
    }
    const issuedAt = Math.floor(now / 1000)
    let expiresAt = issuedAt + this.#settings.lifetimeSeconds
    if (principal.expiresAt !== null && principal.expiresAt > issuedAt) {
      expiresAt = Math.min(expiresAt, principal.expiresAt)
    }
    const key = this.#current
    const jwt = new SignJWT(assertionClaims(principal))
      .setProtectedHeader({ alg: this.#settings.algorithm, kid: key.kid, typ: 'JWT' })
      .setIssuer(this.#settings.issuer)
      .setAudience(this.#settings.audience)
      .setIssuedAt(issuedAt)
      .setExpirationTime(expiresAt)
    if (principal.userId !== null) jwt.setSubject(principal.userId)
    const token = await jwt.sign(key.privateKey)
    this.#cache.set(cacheKey, { token, issuedAt: issuedAt * 1000, expiresAt: expiresAt * 1000 })
    return token
  }

  /** Resolves once a pending next key exists (tests, and start-up readiness). */
  async settled(): Promise<void> {
    await this.#refilling
  }

  #rotateIfDue(): void {
    if (!this.#rotates) return
    const now = this.#now()
    if (this.#retired !== undefined && now > this.#retired.until) this.#retired = undefined
    if (now - this.#currentSince < this.#settings.rotationHours * 3_600_000) return
    // Without a published successor the current key keeps signing: never sign with an unpublished key.
    if (this.#next === undefined) {
      this.#refill()
      return
    }
    this.#retired = {
      key: this.#current,
      until: now + this.#settings.lifetimeSeconds * 1000 + RETIRED_KEY_GRACE_MS,
    }
    this.#current = this.#next
    this.#currentSince = now
    this.#next = undefined
    this.#cache.clear()
    this.#refill()
  }

  #refill(): void {
    if (this.#refilling !== undefined) return
    this.#refilling = generateSigningKey(this.#settings.algorithm)
      .then((key) => {
        this.#next = key
      })
      .catch(() => {
        // Retried at the next rotation check; the current key keeps signing meanwhile.
      })
      .finally(() => {
        this.#refilling = undefined
      })
  }
}

function assertionClaims(principal: Principal): JWTPayload {
  const claims: JWTPayload = { kind: principal.kind }
  if (principal.scopes !== null) claims['scopes'] = [...principal.scopes]
  if (principal.sessionId !== null) claims['session_id'] = principal.sessionId
  if (principal.serviceAccount !== undefined)
    claims['service_account'] = principal.serviceAccount.name
  return claims
}

function assertionCacheKey(principal: Principal): string {
  if (principal.credentialHash !== undefined) return `${principal.kind}:${principal.credentialHash}`
  return JSON.stringify([
    principal.kind,
    principal.userId,
    principal.scopes,
    principal.sessionId,
    principal.serviceAccount?.name ?? null,
    principal.expiresAt,
  ])
}
