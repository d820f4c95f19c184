import { createPublicKey, type KeyObject } from 'node:crypto'
import { existsSync } from 'node:fs'
import { importJWK, type CryptoKey } from 'jose'
import { hmacKeyProblem } from '../../config/secret-strength.js'
import {
  isHmacAlgorithm,
  jwkProblem,
  keyObjectProblem,
  publicJwk,
  rsaBitsProblem,
  type JwtAlgorithm,
} from './key-fit.js'

/** A key jose can verify with: an imported JWK, a PEM public key, or HMAC secret bytes. */
export type VerificationKey = CryptoKey | KeyObject | Uint8Array

/** The keys of one JWKS file: by exact `kid`, plus the last kid-less entry. Never mutated. */
export interface JwksKeys {
  readonly byKid: ReadonlyMap<string, VerificationKey>
  readonly fallback: VerificationKey | undefined
  readonly count: number
}

export type Warn = (details: Record<string, unknown>, message: string) => void

/** A JWKS document whose shape is wrong as a whole (no `keys` array). */
export class JwksFormatError extends Error {
  override readonly name = 'JwksFormatError'
}

/**
 * Imports a parsed JWKS document for `algorithm`. Entries that cannot verify it (wrong `kty`,
 * curve, `alg`, `use`, unparseable members) are skipped with a warning, as AgentOS skips
 * unparseable entries; a later entry with the same kid (or a later kid-less entry) wins.
 */
export async function importJwks(
  document: unknown,
  algorithm: JwtAlgorithm,
  warn: Warn,
): Promise<JwksKeys> {
  const entries = isRecord(document) ? document.keys : undefined
  if (!Array.isArray(entries)) throw new JwksFormatError('has no "keys" array')
  const byKid = new Map<string, VerificationKey>()
  let fallback: VerificationKey | undefined
  for (const [index, entry] of entries.entries()) {
    const imported = await importEntry(entry, algorithm)
    if ('problem' in imported) {
      warn({ entry: index, kid: describeKid(entry) }, `JWKS entry skipped: ${imported.problem}`)
      continue
    }
    if (imported.kid === undefined) fallback = imported.key
    else byKid.set(imported.kid, imported.key)
  }
  const count = byKid.size + (fallback === undefined ? 0 : 1)
  if (count === 0) warn({}, 'JWKS contains no usable keys')
  return Object.freeze({ byKid, fallback, count })
}

type Imported = { key: VerificationKey; kid: string | undefined } | { problem: string }

async function importEntry(entry: unknown, algorithm: JwtAlgorithm): Promise<Imported> {
  if (!isRecord(entry)) return { problem: 'not a JSON object' }
  const kid = entry.kid
  if (kid !== undefined && kid !== null && typeof kid !== 'string')
    return { problem: '"kid" is not a string' }
  const problem = jwkProblem(entry, algorithm)
  if (problem !== undefined) return { problem }
  let key: CryptoKey | Uint8Array
  try {
    key = await importJWK(publicJwk(entry), algorithm)
  } catch {
    return { problem: 'its key members could not be imported' }
  }
  if (key instanceof Uint8Array) {
    const tooShort = hmacKeyProblem(key.byteLength, algorithm)
    if (tooShort !== undefined) return { problem: tooShort }
  }
  if (!(key instanceof Uint8Array) && /^(RS|PS)/.test(algorithm)) {
    const tooShort = rsaBitsProblem((key.algorithm as { modulusLength?: number }).modulusLength)
    if (tooShort !== undefined) return { problem: tooShort }
  }
  return { key, kid: typeof kid === 'string' && kid !== '' ? kid : undefined }
}

/**
 * The static `verification_keys`, checked once at startup: HMAC secrets as bytes, at least as long
 * as the hash (a PEM or SSH public key is refused there, since anyone holding the public key could
 * then sign), otherwise a PEM public key or certificate whose type fits the algorithm. A file's
 * path given where its content belongs is said so. Errors name the index, never the key.
 */
export function loadStaticKeys(
  keys: readonly string[],
  algorithm: JwtAlgorithm,
  warn: Warn,
): VerificationKey[] {
  return keys.map((key, index) => {
    const at = `auth.verification_keys[${index}]`
    if (isHmacAlgorithm(algorithm)) {
      if (looksLikePublicKey(key)) {
        throw new Error(
          `${at}: looks like a PEM or SSH key, but ${algorithm} needs a shared secret`,
        )
      }
      if (namesAFile(key, true)) throw new Error(`${at}: ${FILE_PATH_GIVEN}`)
      const secret = new TextEncoder().encode(key)
      const tooShort = hmacKeyProblem(secret.byteLength, algorithm)
      if (tooShort !== undefined) throw new Error(`${at}: ${tooShort}`)
      return secret
    }
    let publicKey: KeyObject
    try {
      publicKey = createPublicKey(key)
    } catch {
      throw new Error(
        namesAFile(key, false)
          ? `${at}: ${FILE_PATH_GIVEN}`
          : `${at}: not a PEM public key or certificate (needed for ${algorithm})`,
      )
    }
    if (key.includes('PRIVATE KEY-----')) {
      warn({ key: at }, 'a verification key is a private key; only its public part is used')
    }
    const problem = keyObjectProblem(publicKey, algorithm)
    if (problem !== undefined) throw new Error(`${at}: ${problem}`)
    return publicKey
  })
}

const FILE_PATH_GIVEN =
  'is a file\'s path, not a key: give the key itself (JWT_VERIFICATION_KEY="$(cat PATH)") or {from_file: PATH}'

/**
 * Whether a key looks like a file's path: one line starting with `/`, `./`, `../` or `~/`. A shared
 * secret may look like that by chance, so for one the file must also exist.
 */
function namesAFile(key: string, mustExist: boolean): boolean {
  if (!/^(\/|\.{1,2}\/|~\/)[^\n]*$/.test(key.trim())) return false
  return !mustExist || existsSync(key.trim())
}

function looksLikePublicKey(key: string): boolean {
  return /^\s*(-----BEGIN |ssh-(rsa|dss|ed25519) |ecdsa-sha2-)/.test(key)
}

function describeKid(entry: unknown): string | null {
  return isRecord(entry) && typeof entry.kid === 'string' ? entry.kid.slice(0, 100) : null
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
