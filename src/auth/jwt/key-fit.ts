import type { KeyObject } from 'node:crypto'
import type { JWT_ALGORITHMS } from '../../config/sections/auth.js'

export type JwtAlgorithm = (typeof JWT_ALGORITHMS)[number]

const MIN_RSA_BITS = 2048

/** ES* → [JWK curve name, OpenSSL curve name]. */
const EC_CURVES: Readonly<Record<string, readonly [string, string]>> = {
  ES256: ['P-256', 'prime256v1'],
  ES384: ['P-384', 'secp384r1'],
  ES512: ['P-521', 'secp521r1'],
}

export function isHmacAlgorithm(algorithm: JwtAlgorithm): boolean {
  return algorithm.startsWith('HS')
}

/**
 * Why a JWK cannot verify `algorithm`, or undefined when it can: the key type (and curve) must be
 * the algorithm's, and the optional `alg`, `use` and `key_ops` members must allow it.
 */
export function jwkProblem(
  jwk: Readonly<Record<string, unknown>>,
  algorithm: JwtAlgorithm,
): string | undefined {
  if (jwk.alg !== undefined && jwk.alg !== algorithm)
    return 'its "alg" is not the configured algorithm'
  if (jwk.use !== undefined && jwk.use !== 'sig') return 'its "use" is not "sig"'
  if (
    jwk.key_ops !== undefined &&
    !(Array.isArray(jwk.key_ops) && jwk.key_ops.includes('verify'))
  ) {
    return 'its "key_ops" do not include "verify"'
  }
  const family = algorithm.slice(0, 2)
  if (family === 'HS') return jwk.kty === 'oct' && isText(jwk.k) ? undefined : 'not an "oct" key'
  if (family === 'RS' || family === 'PS') {
    return jwk.kty === 'RSA' && isText(jwk.n) && isText(jwk.e) ? undefined : 'not an "RSA" key'
  }
  if (family === 'ES') {
    const curve = EC_CURVES[algorithm]?.[0]
    return jwk.kty === 'EC' && jwk.crv === curve && isText(jwk.x) && isText(jwk.y)
      ? undefined
      : `not an "EC" key on curve ${curve ?? '?'}`
  }
  return jwk.kty === 'OKP' && jwk.crv === 'Ed25519' && isText(jwk.x)
    ? undefined
    : 'not an Ed25519 key'
}

/** The public members only: private members and metadata never reach the key import. */
export function publicJwk(jwk: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const members: Readonly<Record<string, readonly string[]>> = {
    oct: ['kty', 'k'],
    RSA: ['kty', 'n', 'e'],
    EC: ['kty', 'crv', 'x', 'y'],
    OKP: ['kty', 'crv', 'x'],
  }
  const names = typeof jwk.kty === 'string' ? (members[jwk.kty] ?? []) : []
  return Object.fromEntries(names.map((name) => [name, jwk[name]]))
}

/** Why a PEM-loaded public key cannot verify `algorithm`, or undefined when it can. */
export function keyObjectProblem(key: KeyObject, algorithm: JwtAlgorithm): string | undefined {
  const type = key.asymmetricKeyType
  const family = algorithm.slice(0, 2)
  if (family === 'RS' || family === 'PS') {
    const allowed = family === 'RS' ? type === 'rsa' : type === 'rsa' || type === 'rsa-pss'
    if (!allowed) return `${algorithm} needs an RSA key, got ${type ?? 'unknown'}`
    return rsaBitsProblem(key.asymmetricKeyDetails?.modulusLength)
  }
  if (family === 'ES') {
    const curve = EC_CURVES[algorithm]?.[1]
    const actual = key.asymmetricKeyDetails?.namedCurve
    if (type !== 'ec' || actual !== curve) {
      return `${algorithm} needs an EC key on ${curve ?? '?'}, got ${type ?? 'unknown'} ${actual ?? ''}`.trimEnd()
    }
    return undefined
  }
  return type === 'ed25519'
    ? undefined
    : `${algorithm} needs an Ed25519 key, got ${type ?? 'unknown'}`
}

export function rsaBitsProblem(bits: number | undefined): string | undefined {
  return bits !== undefined && bits >= MIN_RSA_BITS
    ? undefined
    : `RSA keys need at least ${MIN_RSA_BITS} bits`
}

function isText(value: unknown): boolean {
  return typeof value === 'string' && value !== ''
}
