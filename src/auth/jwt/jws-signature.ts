import {
  constants,
  createHmac,
  KeyObject,
  verify,
  type VerifyKeyObjectInput,
  type VerifyPublicKeyInput,
} from 'node:crypto'
import { compactVerify, errors, type CompactVerifyResult, type VerifyOptions } from 'jose'
import { equalDigests } from '../constant-time.js'
import { decodeHeader } from './compact-token.js'
import { rsaBitsProblem, type JwtAlgorithm } from './key-fit.js'
import type { VerificationKey } from './key-set.js'

/**
 * A key made ready for `node:crypto` once: jose verifies through WebCrypto, an asynchronous job
 * per token that costs about twice a synchronous `crypto.verify` (HMAC far more than that).
 */
type PreparedKey =
  | { readonly kind: 'hmac'; readonly hash: string; readonly secret: Buffer }
  | {
      readonly kind: 'asymmetric'
      readonly hash: string | null
      readonly input: KeyObject | VerifyKeyObjectInput | VerifyPublicKeyInput
    }

const HASHES: Readonly<Record<string, string>> = {
  '256': 'sha256',
  '384': 'sha384',
  '512': 'sha512',
}
const CURVES: Readonly<Record<string, string>> = {
  ES256: 'prime256v1',
  ES384: 'secp384r1',
  ES512: 'secp521r1',
}

/** Prepared keys by the key object they came from (keys are immutable once loaded). */
const prepared = new WeakMap<object, Map<string, PreparedKey | null>>()

/**
 * JWS compact verification (RFC 7515) of the signature only, with `node:crypto`, for the headers
 * every issuer sends. Anything else (a `crit` or `b64` header, a key `node:crypto` refuses) goes to
 * jose, so every outcome and error stays jose's. The caller has already checked that `alg` is the
 * configured algorithm and that the three segments are base64url. The node:crypto check answers
 * at once (a mismatch is thrown), jose's with a promise.
 */
export function verifyCompactJws(
  token: string,
  key: VerificationKey,
  options: VerifyOptions,
): Pick<CompactVerifyResult, 'payload'> | Promise<Pick<CompactVerifyResult, 'payload'>> {
  return verifyWithNodeCrypto(token, key, options) ?? compactVerify(token, key, options)
}

/** The payload, a thrown jose-equivalent signature failure, or undefined to let jose decide. */
export function verifyWithNodeCrypto(
  token: string,
  key: VerificationKey,
  options: VerifyOptions,
): Pick<CompactVerifyResult, 'payload'> | undefined {
  const firstDot = token.indexOf('.')
  const lastDot = token.lastIndexOf('.')
  if (firstDot <= 0 || lastDot === firstDot) return undefined
  const header = decodeHeader(token.slice(0, firstDot))
  if (header === undefined || 'crit' in header || 'b64' in header) return undefined
  const alg = header.alg
  if (typeof alg !== 'string' || options.algorithms?.includes(alg) !== true) return undefined
  const prepared = preparedKey(key, alg as JwtAlgorithm)
  if (prepared === null) return undefined
  const signingInput = Buffer.from(token.slice(0, lastDot), 'latin1')
  const signature = Buffer.from(token.slice(lastDot + 1), 'base64url')
  let valid: boolean
  try {
    valid = checkSignature(prepared, signingInput, signature)
  } catch {
    return undefined
  }
  if (!valid) throw new SignatureMismatch()
  return { payload: Buffer.from(token.slice(firstDot + 1, lastDot), 'base64url') }
}

function checkSignature(key: PreparedKey, signingInput: Buffer, signature: Buffer): boolean {
  if (key.kind === 'hmac') {
    const expected = createHmac(key.hash, key.secret).update(signingInput).digest()
    return equalDigests(expected, signature)
  }
  return verify(key.hash, signingInput, key.input, signature)
}

/** jose's own class, so that the caller maps it exactly as it maps jose's failures. */
class SignatureMismatch extends errors.JWSSignatureVerificationFailed {}

function preparedKey(key: VerificationKey, alg: JwtAlgorithm): PreparedKey | null {
  let byAlg = prepared.get(key)
  if (byAlg === undefined) {
    byAlg = new Map()
    prepared.set(key, byAlg)
  }
  let entry = byAlg.get(alg)
  if (entry === undefined) {
    entry = prepare(key, alg)
    byAlg.set(alg, entry)
  }
  return entry
}

/** null when the pair is not one the fast path knows (jose then decides, as before). */
function prepare(key: VerificationKey, alg: JwtAlgorithm): PreparedKey | null {
  const family = alg.slice(0, 2)
  const hash = HASHES[alg.slice(2)]
  if (family === 'HS') {
    if (!(key instanceof Uint8Array) || key.byteLength === 0 || hash === undefined) return null
    return { kind: 'hmac', hash, secret: Buffer.from(key) }
  }
  if (key instanceof Uint8Array) return null
  let object: KeyObject
  try {
    object = key instanceof KeyObject ? key : KeyObject.from(key)
  } catch {
    return null
  }
  if (object.type !== 'public') return null
  const type = object.asymmetricKeyType
  if (alg === 'EdDSA')
    return type === 'ed25519' ? { kind: 'asymmetric', hash: null, input: object } : null
  if (hash === undefined) return null
  const details = object.asymmetricKeyDetails
  // A key jose would refuse at verification (short RSA, another curve) is left to jose to refuse.
  if ((family === 'RS' || family === 'PS') && rsaBitsProblem(details?.modulusLength) !== undefined)
    return null
  if (family === 'RS' && type === 'rsa') return { kind: 'asymmetric', hash, input: object }
  if (family === 'PS' && type === 'rsa') {
    return {
      kind: 'asymmetric',
      hash,
      input: {
        key: object,
        padding: constants.RSA_PKCS1_PSS_PADDING,
        saltLength: constants.RSA_PSS_SALTLEN_DIGEST,
      },
    }
  }
  if (family === 'ES' && type === 'ec' && details?.namedCurve === CURVES[alg]) {
    return { kind: 'asymmetric', hash, input: { key: object, dsaEncoding: 'ieee-p1363' } }
  }
  return null
}
