import { readFile } from 'node:fs/promises'
import {
  calculateJwkThumbprint,
  exportJWK,
  generateKeyPair,
  importJWK,
  type CryptoKey,
  type JWK,
} from 'jose'

export type AssertionAlgorithm = 'ES256' | 'EdDSA' | 'RS256'

/** A key the assertion signer can sign with, and the public half it publishes. */
export interface SigningKey {
  readonly kid: string
  readonly privateKey: CryptoKey
  readonly publicJwk: JWK
}

function publicPart(jwk: JWK): JWK {
  if (jwk.kty === 'EC') return { kty: 'EC', crv: jwk.crv, x: jwk.x, y: jwk.y }
  if (jwk.kty === 'OKP') return { kty: 'OKP', crv: jwk.crv, x: jwk.x }
  if (jwk.kty === 'RSA') return { kty: 'RSA', n: jwk.n, e: jwk.e }
  throw new Error(`unsupported key type ${String(jwk.kty)}`)
}

function published(jwk: JWK, kid: string, algorithm: AssertionAlgorithm): JWK {
  return { ...publicPart(jwk), kid, alg: algorithm, use: 'sig' }
}

/** A fresh key pair; the private half never leaves the process. */
export async function generateSigningKey(algorithm: AssertionAlgorithm): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(algorithm)
  const jwk = await exportJWK(publicKey)
  const kid = await calculateJwkThumbprint(publicPart(jwk))
  return { kid, privateKey, publicJwk: published(jwk, kid, algorithm) }
}

/**
 * The private JWK set replicas share (`{"keys":[…]}`): every key must be a private key for the
 * configured algorithm; `kid` defaults to the RFC 7638 thumbprint.
 */
export async function loadSigningKeys(
  path: string,
  algorithm: AssertionAlgorithm,
): Promise<SigningKey[]> {
  const document = JSON.parse(await readFile(path, 'utf8')) as { keys?: unknown }
  if (!Array.isArray(document.keys) || document.keys.length === 0) {
    throw new Error(`${path}: expected a JWK set with at least one key`)
  }
  const keys: SigningKey[] = []
  for (const [index, entry] of document.keys.entries()) {
    const jwk = entry as JWK
    const where = `${path}: key ${index}`
    if (typeof jwk !== 'object' || jwk === null || typeof jwk.d !== 'string') {
      throw new Error(`${where} is not a private key`)
    }
    if (jwk.alg !== undefined && jwk.alg !== algorithm) {
      throw new Error(`${where} is for ${jwk.alg}, the assertion algorithm is ${algorithm}`)
    }
    const privateKey = await importJWK(jwk, algorithm).catch((error: unknown) => {
      throw new Error(`${where} cannot be used for ${algorithm}`, { cause: error })
    })
    if (privateKey instanceof Uint8Array) throw new Error(`${where} is a symmetric key`)
    const kid =
      typeof jwk.kid === 'string' && jwk.kid !== ''
        ? jwk.kid
        : await calculateJwkThumbprint(publicPart(jwk))
    keys.push({ kid, privateKey, publicJwk: published(jwk, kid, algorithm) })
  }
  return keys
}
