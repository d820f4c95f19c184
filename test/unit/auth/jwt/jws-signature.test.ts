import { generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto'
import t from 'tap'
import { compactVerify, errors, importJWK, type CryptoKey } from 'jose'
import { verifyCompactJws, verifyWithNodeCrypto } from '../../../../src/auth/jwt/jws-signature.js'
import type { VerificationKey } from '../../../../src/auth/jwt/key-set.js'
import { JWT_ALGORITHMS } from '../../../../src/config/sections/auth.js'
import { base64url, signJwt } from '../../../helpers/jwt.js'

/**
 * The node:crypto fast path must decide exactly as jose does, for every algorithm and for both
 * forms a key is held in (a PEM-loaded KeyObject, a JWK imported by jose), and must leave to jose
 * what it does not know.
 */

interface Pair {
  readonly sign: KeyObject | Uint8Array
  readonly held: readonly VerificationKey[]
}

async function pairFor(
  alg: string,
  options: { rsaBits?: number; curve?: string } = {},
): Promise<Pair> {
  if (alg.startsWith('HS')) {
    const secret = randomBytes(32)
    return { sign: secret, held: [new Uint8Array(secret)] }
  }
  const { publicKey, privateKey } = keyPair(alg, options)
  const imported = (await importJWK(publicKey.export({ format: 'jwk' }), alg)) as CryptoKey
  return { sign: privateKey, held: [publicKey, imported] }
}

function keyPair(alg: string, options: { rsaBits?: number; curve?: string }) {
  if (alg === 'EdDSA') return generateKeyPairSync('ed25519')
  if (alg.startsWith('ES')) {
    const curve = options.curve ?? { ES256: 'P-256', ES384: 'P-384', ES512: 'P-521' }[alg]
    return generateKeyPairSync('ec', { namedCurve: curve as string })
  }
  return generateKeyPairSync('rsa', { modulusLength: options.rsaBits ?? 2048 })
}

async function outcome(
  run: () => { payload: Uint8Array } | Promise<{ payload: Uint8Array }>,
): Promise<string> {
  try {
    return `payload ${Buffer.from((await run()).payload).toString('utf8')}`
  } catch (error) {
    if (error instanceof errors.JWSSignatureVerificationFailed) return 'signature failed'
    return `${(error as Error).constructor.name}: ${(error as Error).message}`
  }
}

/** RS256 signed by hand: jose refuses to sign with some of the keys these cases need. */
function signRs256(header: Record<string, unknown>, key: KeyObject): string {
  const input = `${base64url(JSON.stringify(header))}.${base64url(JSON.stringify({ sub: 'a' }))}`
  return `${input}.${base64url(sign('sha256', Buffer.from(input), key))}`
}

function tamper(token: string): string {
  const dot = token.lastIndexOf('.')
  const signature = Buffer.from(token.slice(dot + 1), 'base64url')
  signature[0] = (signature[0] ?? 0) ^ 1
  return `${token.slice(0, dot)}.${base64url(signature)}`
}

function truncate(token: string): string {
  const dot = token.lastIndexOf('.')
  const signature = Buffer.from(token.slice(dot + 1), 'base64url')
  return `${token.slice(0, dot)}.${base64url(signature.subarray(1))}`
}

for (const alg of JWT_ALGORITHMS) {
  void t.test(`${alg}: node:crypto decides as jose`, async (t) => {
    const pair = await pairFor(alg)
    const other = await pairFor(alg)
    const options = { algorithms: [alg] }
    const token = await signJwt({ sub: 'alice', scopes: ['agents:read'] }, { alg, key: pair.sign })
    const foreign = await signJwt({ sub: 'alice' }, { alg, key: other.sign })
    for (const [index, key] of pair.held.entries()) {
      const form = index === 0 ? 'as loaded' : 'as imported from a JWK'
      t.ok(verifyWithNodeCrypto(token, key, options), `${form}: the fast path verifies it`)
      for (const [what, candidate] of [
        ['valid', token],
        ['tampered signature', tamper(token)],
        ['short signature', truncate(token)],
        ['another key', foreign],
      ] as const) {
        const ours = await outcome(() => verifyCompactJws(candidate, key, options))
        const jose = await outcome(() => compactVerify(candidate, key, options))
        t.equal(ours, jose, `${form}, ${what}: ${jose}`)
      }
    }
  })
}

void t.test('headers and keys the fast path does not know are left to jose', async (t) => {
  const rsa = await pairFor('RS256')
  const options = { algorithms: ['RS256'] }
  for (const header of [
    { alg: 'RS256', crit: ['exp'], exp: 1 },
    { alg: 'RS256', crit: ['b64'], b64: false },
    { alg: 'RS256', b64: true },
  ]) {
    const token = signRs256(header, rsa.sign as KeyObject)
    const what = JSON.stringify(header)
    t.equal(verifyWithNodeCrypto(token, rsa.held[0] as KeyObject, options), undefined, what)
    const jose = await outcome(() => compactVerify(token, rsa.held[0] as KeyObject, options))
    t.equal(
      await outcome(() => verifyCompactJws(token, rsa.held[0] as KeyObject, options)),
      jose,
      `${what}: ${jose}`,
    )
  }
  const short = await pairFor('RS256', { rsaBits: 1024 })
  const shortToken = signRs256({ alg: 'RS256' }, short.sign as KeyObject)
  t.equal(
    verifyWithNodeCrypto(shortToken, short.held[0] as KeyObject, options),
    undefined,
    'an RSA key under 2048 bits',
  )
  t.equal(
    await outcome(() => verifyCompactJws(shortToken, short.held[0] as KeyObject, options)),
    await outcome(() => compactVerify(shortToken, short.held[0] as KeyObject, options)),
  )
  const p384 = keyPair('ES256', { curve: 'P-384' })
  const es = await signJwt({ sub: 'a' }, { alg: 'ES256', key: (await pairFor('ES256')).sign })
  t.equal(
    verifyWithNodeCrypto(es, p384.publicKey, { algorithms: ['ES256'] }),
    undefined,
    'an EC key on another curve',
  )
  const hs = await signJwt({ sub: 'a' }, { alg: 'HS256', key: 'secret' })
  t.equal(
    verifyWithNodeCrypto(hs, rsa.held[0] as KeyObject, { algorithms: ['HS256'] }),
    undefined,
    'an asymmetric key for an HMAC algorithm',
  )
  t.equal(
    verifyWithNodeCrypto(hs, new TextEncoder().encode('secret'), { algorithms: ['HS512'] }),
    undefined,
    'an alg outside the allowed list',
  )
})
