import { createHmac, createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { SignJWT, type JWTHeaderParameters, type JWTPayload } from 'jose'
import { projectPath } from './project-root.js'

/** Test-only keys committed under test/fixtures/keys (see the README there). */
export const KEYS_DIR = projectPath('test/fixtures/keys/')

export function keyFile(name: string): string {
  return readFileSync(`${KEYS_DIR}${name}`, 'utf8')
}

export const fixtures = {
  rsaPrivate: (): KeyObject => createPrivateKey(keyFile('rsa-private.pem')),
  rsaPublicPem: (): string => keyFile('rsa-public.pem'),
  rsa2Private: (): KeyObject => createPrivateKey(keyFile('rsa2-private.pem')),
  rsa2PublicPem: (): string => keyFile('rsa2-public.pem'),
  rsaCertificatePem: (): string => keyFile('rsa-cert.pem'),
  ecPrivate: (): KeyObject => createPrivateKey(keyFile('ec-p256-private.pem')),
  ecPublicPem: (): string => keyFile('ec-p256-public.pem'),
  ed25519Private: (): KeyObject => createPrivateKey(keyFile('ed25519-private.pem')),
  ed25519PublicPem: (): string => keyFile('ed25519-public.pem'),
  hmacSecret: (): string => keyFile('hmac-secret.txt'),
  jwksPath: `${KEYS_DIR}jwks.json`,
}

/** A public JWK of a PEM key, for writing JWKS files in tests. */
export function publicJwk(pem: string | KeyObject, extra: Record<string, unknown> = {}) {
  const key = typeof pem !== 'string' && pem.type === 'public' ? pem : createPublicKey(pem)
  return { ...key.export({ format: 'jwk' }), ...extra }
}

export interface SignOptions {
  readonly alg: string
  /** A private key, or an HMAC secret (string or bytes). */
  readonly key: KeyObject | Uint8Array | string
  readonly kid?: string
  readonly header?: Partial<JWTHeaderParameters> & Record<string, unknown>
}

/** A correctly signed JWT (jose SignJWT); claims are taken as given, nothing is added. */
export async function signJwt(claims: JWTPayload, options: SignOptions): Promise<string> {
  const key = typeof options.key === 'string' ? new TextEncoder().encode(options.key) : options.key
  return new SignJWT(claims)
    .setProtectedHeader({
      ...options.header,
      alg: options.alg,
      ...(options.kid === undefined ? {} : { kid: options.kid }),
    })
    .sign(key)
}

export function base64url(value: string | Uint8Array): string {
  return Buffer.from(value).toString('base64url')
}

/** A token assembled by hand: any header (alg none, forged), any payload text, any signature. */
export function rawJwt(header: unknown, payload: unknown, signature = ''): string {
  const encode = (part: unknown) =>
    base64url(typeof part === 'string' ? part : JSON.stringify(part))
  return `${encode(header)}.${encode(payload)}.${signature}`
}

/** HS256 over exact JSON texts (duplicate keys survive), signed with `secret` bytes. */
export function signRawHs(
  headerJson: string,
  payloadJson: string,
  secret: string | Uint8Array,
  hash: 'sha256' | 'sha512' = 'sha256',
): string {
  const input = `${base64url(headerJson)}.${base64url(payloadJson)}`
  const signature = createHmac(hash, secret).update(input).digest('base64url')
  return `${input}.${signature}`
}
