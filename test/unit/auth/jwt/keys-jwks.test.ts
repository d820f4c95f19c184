import t from 'tap'
import { base64url, fixtures, publicJwk, signJwt } from '../../../helpers/jwt.js'
import { gatewayErrorOf } from '../helpers.js'
import { createVerifier } from './setup.js'

void t.test('each asymmetric family verifies through a JWKS entry', async (t) => {
  const cases = [
    { alg: 'RS256', pem: fixtures.rsaPublicPem(), key: fixtures.rsaPrivate() },
    { alg: 'PS384', pem: fixtures.rsaPublicPem(), key: fixtures.rsaPrivate() },
    { alg: 'ES256', pem: fixtures.ecPublicPem(), key: fixtures.ecPrivate() },
    { alg: 'EdDSA', pem: fixtures.ed25519PublicPem(), key: fixtures.ed25519Private() },
  ]
  for (const { alg, pem, key } of cases) {
    const dir = t.testdir({ 'jwks.json': JSON.stringify({ keys: [publicJwk(pem, { kid: 'k' })] }) })
    const { principal } = await createVerifier(t, {
      algorithm: alg,
      jwks_file: `${dir}/jwks.json`,
      jwks_watch: false,
    })
    t.equal((await principal(await signJwt({ sub: alg }, { alg, key, kid: 'k' }))).userId, alg, alg)
  }
  const secret = 'jwks-secret-of-32-bytes-at-least-0123'
  const octDir = t.testdir({
    'jwks.json': JSON.stringify({
      keys: [
        { kty: 'oct', k: base64url(secret), kid: 'h' },
        { kty: 'oct', k: base64url('too-short-for-hs256'), kid: 'short' },
      ],
    }),
  })
  const hmac = await createVerifier(t, {
    algorithm: 'HS256',
    jwks_file: `${octDir}/jwks.json`,
    jwks_watch: false,
  })
  const token = await signJwt({ sub: 'h' }, { alg: 'HS256', key: secret, kid: 'h' })
  t.equal((await hmac.principal(token)).userId, 'h', 'HS256 through an oct entry')
  t.match(
    hmac.logs.text,
    /JWKS entry skipped: too short for HS256 \(19 bytes\); RFC 7518 §3\.2 requires at least 32 bytes/,
    'an oct key shorter than the hash is skipped',
  )
})

void t.test(
  'JWKS errors fall through to static keys only when there are some (JWT-8)',
  async (t) => {
    const jwks = JSON.stringify({ keys: [publicJwk(fixtures.rsaPublicPem(), { kid: 'k' })] })
    const dir = t.testdir({ 'jwks.json': jwks })
    const onlyJwks = await createVerifier(t, {
      algorithm: 'RS256',
      jwks_file: `${dir}/jwks.json`,
      jwks_watch: false,
    })
    const signedBy2 = await signJwt(
      { sub: 'b' },
      { alg: 'RS256', key: fixtures.rsa2Private(), kid: 'k' },
    )
    t.equal((await gatewayErrorOf(() => onlyJwks.principal(signedBy2))).reason, 'jwt.signature')
    const withStatic = await createVerifier(t, {
      algorithm: 'RS256',
      jwks_file: `${dir}/jwks.json`,
      jwks_watch: false,
      verification_keys: [fixtures.rsa2PublicPem()],
    })
    t.equal(
      (await withStatic.principal(signedBy2)).userId,
      'b',
      'the static key verifies after the JWKS key failed',
    )
    const expired = await signJwt(
      { sub: 'a', exp: withStatic.clock.seconds - 60 },
      { alg: 'RS256', key: fixtures.rsaPrivate(), kid: 'k' },
    )
    t.equal(
      (await gatewayErrorOf(() => withStatic.principal(expired))).detail,
      'Token has expired',
      'a JWKS expiry is final',
    )
  },
)

void t.test('JWKS entries are imported by kid, skipped when unusable', async (t) => {
  const rsa = publicJwk(fixtures.rsaPublicPem())
  const keys = [
    { ...rsa, kid: 'first' },
    { ...rsa, kid: 'wrong-alg', alg: 'RS512' },
    { ...rsa, kid: 'enc', use: 'enc' },
    { ...rsa, kid: 'no-verify', key_ops: ['encrypt'] },
    { ...rsa, kid: 7 },
    { kty: 'RSA', kid: 'broken', n: '!!', e: 'AQAB' },
    { kty: 'RSA', kid: 'missing-n', e: 'AQAB' },
    'not an object',
    { ...publicJwk(fixtures.rsa2PublicPem()), kid: 'first' },
    { ...rsa, kid: '' },
    { ...rsa, d: base64url('private parts are dropped'), kid: 'with-private-member' },
  ]
  const dir = t.testdir({ 'jwks.json': JSON.stringify({ keys }) })
  const { principal, logs, metrics } = await createVerifier(t, {
    algorithm: 'RS256',
    jwks_file: `${dir}/jwks.json`,
    jwks_watch: false,
  })
  t.equal((logs.text.match(/JWKS entry skipped/g) ?? []).length, 7)
  t.notMatch(logs.text, /"n":/, 'no key material in the warnings')
  t.match(
    await metrics.render(),
    /portcullis_jwks_keys\{source="file"\} 3/,
    'first, the kid-less entry, with-private-member',
  )
  const sign = (kid: string | undefined, key = fixtures.rsaPrivate()) =>
    signJwt({ sub: kid ?? 'none' }, { alg: 'RS256', key, ...(kid === undefined ? {} : { kid }) })
  t.equal(
    (await principal(await sign('first', fixtures.rsa2Private()))).userId,
    'first',
    'a later entry with the same kid wins',
  )
  t.equal(
    (await principal(await sign(undefined))).userId,
    'none',
    'an empty kid is the kid-less entry',
  )
  t.equal((await principal(await sign('with-private-member'))).userId, 'with-private-member')
})

void t.test('startup errors', async (t) => {
  const dir = t.testdir({
    'bad.json': '{"keys": [',
    'shape.json': '[1]',
    'empty.json': '{"keys": []}',
  })
  await t.rejects(createVerifier(t, { jwks_file: `${dir}/missing.json` }), {
    message: `JWKS file not found: ${dir}/missing.json`,
  })
  await t.rejects(createVerifier(t, { jwks_file: `${dir}/bad.json` }), {
    message: new RegExp(`^Invalid JSON in JWKS file ${dir}/bad.json: `),
  })
  await t.rejects(createVerifier(t, { jwks_file: `${dir}/shape.json` }), {
    message: /has no "keys" array/,
  })
  await t.rejects(createVerifier(t, { jwks_file: `${dir}/empty.json` }), {
    message: `auth.jwks_file: ${dir}/empty.json holds no key usable with auth.algorithm RS256 (entries of another key type, curve or "alg" are skipped), and no other verification key is configured`,
  })
  const withStatic = await createVerifier(t, {
    jwks_file: `${dir}/empty.json`,
    verification_keys: [fixtures.rsaPublicPem()],
    jwks_watch: false,
  })
  t.ok(withStatic.verifier, 'an empty JWKS is fine next to static keys')
})
