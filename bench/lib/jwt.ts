import { createHmac, generateKeyPairSync, sign as signBytes, type KeyObject } from 'node:crypto'

export type JwtAlgorithm = 'RS256' | 'ES256' | 'HS256'

/** A key pair (or HMAC secret) for one algorithm, and what the verifier is configured with. */
export interface SigningKey {
  readonly alg: JwtAlgorithm
  /** The private key, or the HMAC secret. */
  readonly signing: KeyObject | string
  /** PEM public key, or the HMAC secret itself. */
  readonly verification: string
}

export function generateSigningKey(alg: JwtAlgorithm): SigningKey {
  if (alg === 'HS256') {
    const secret = `bench-hmac-secret-${Math.random().toString(36).slice(2)}-0123456789abcdef`
    return { alg, signing: secret, verification: secret }
  }
  const pair =
    alg === 'RS256'
      ? generateKeyPairSync('rsa', { modulusLength: 2048 })
      : generateKeyPairSync('ec', { namedCurve: 'P-256' })
  const pem = pair.publicKey.export({ type: 'spki', format: 'pem' }).toString()
  return { alg, signing: pair.privateKey, verification: pem }
}

function encode(value: unknown): string {
  return Buffer.from(JSON.stringify(value), 'utf8').toString('base64url')
}

/** A compact JWS signed with node:crypto (fast enough to pre-generate tens of thousands). */
export function signJwt(key: SigningKey, claims: Readonly<Record<string, unknown>>): string {
  const input = `${encode({ alg: key.alg, typ: 'JWT' })}.${encode(claims)}`
  let signature: Buffer
  if (key.alg === 'HS256') {
    signature = createHmac('sha256', key.signing).update(input).digest()
  } else if (key.alg === 'RS256') {
    signature = signBytes('sha256', Buffer.from(input), key.signing)
  } else {
    signature = signBytes('sha256', Buffer.from(input), {
      key: key.signing as KeyObject,
      dsaEncoding: 'ieee-p1363',
    })
  }
  return `${input}.${signature.toString('base64url')}`
}

/** The claims of benchmark token number `n`: distinct `jti`, one hour of validity. */
export function benchClaims(n: number, nowSeconds: number): Record<string, unknown> {
  return {
    sub: `bench-user-${n % 100}`,
    scopes: ['agents:read'],
    iat: nowSeconds,
    exp: nowSeconds + 3_600,
    jti: `bench-${n}`,
  }
}

/** `count` distinct tokens (numbered from 1; 0 is the "repeated" token). */
export function freshTokens(key: SigningKey, count: number, nowSeconds: number): string[] {
  const tokens: string[] = []
  for (let n = 1; n <= count; n++) tokens.push(signJwt(key, benchClaims(n, nowSeconds)))
  return tokens
}
