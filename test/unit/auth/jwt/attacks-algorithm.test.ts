import t from 'tap'
import { base64url, fixtures, publicJwk, rawJwt, signJwt, signRawHs } from '../../../helpers/jwt.js'
import { gatewayErrorOf } from '../helpers.js'
import { createVerifier, J, K, legit, RS } from './setup.js'

/** Attack classes 19 (alg none, empty signatures) and 20 (algorithm/key confusion). */

void t.test('19: alg none in any spelling, empty and stripped signatures', async (t) => {
  for (const config of [RS, J]) {
    const { principal } = await createVerifier(t, config)
    for (const alg of ['none', 'None', 'NONE', 'nOnE', '']) {
      for (const signature of ['', 'AAAA']) {
        const error = await gatewayErrorOf(() =>
          principal(rawJwt({ alg }, { sub: 'admin' }, signature)),
        )
        t.equal(
          error.detail,
          'Invalid token: The specified alg value is not allowed',
          `${config.algorithm} ${alg}`,
        )
      }
    }
    for (const header of [{}, { alg: null }, { alg: ['RS256'] }, { alg: 256 }]) {
      const error = await gatewayErrorOf(() => principal(rawJwt(header, { sub: 'a' }, 'AAAA')))
      t.equal(error.reason, 'jwt.algorithm', JSON.stringify(header))
    }
    const valid =
      config === RS ? await legit() : await signJwt({ sub: 'alice' }, { alg: 'HS256', key: K })
    const [head, body] = valid.split('.')
    const stripped = await gatewayErrorOf(() => principal(`${head}.${body}.`))
    t.equal(
      stripped.detail,
      'Invalid token: Signature verification failed',
      'signature stripped, trailing dot kept',
    )
    t.equal(
      (await gatewayErrorOf(() => principal(`${head}.${body}`))).detail,
      'Invalid token: Not enough segments',
    )
    const wrong = await gatewayErrorOf(() =>
      principal(`${head}.${body}.${base64url('x'.repeat(256))}`),
    )
    t.equal(wrong.reason, 'jwt.signature', 'a garbage signature')
  }
})

void t.test(
  '20: algorithm confusion: HS256 signed with the RSA public key while RS256 is configured',
  async (t) => {
    const { principal } = await createVerifier(t, RS)
    const pem = fixtures.rsaPublicPem()
    const forged = await signJwt({ sub: 'admin', scopes: ['os:admin'] }, { alg: 'HS256', key: pem })
    t.equal((await gatewayErrorOf(() => principal(forged))).reason, 'jwt.algorithm')
    const relabelled = signRawHs('{"alg":"RS256"}', '{"sub":"admin"}', pem)
    t.equal(
      (await gatewayErrorOf(() => principal(relabelled))).reason,
      'jwt.signature',
      'an HMAC under an RS256 label',
    )
    const whitespacePem = await signJwt({ sub: 'admin' }, { alg: 'HS256', key: `\n  ${pem}` })
    t.equal((await gatewayErrorOf(() => principal(whitespacePem))).reason, 'jwt.algorithm')
  },
)

void t.test('20: a JWKS key of the wrong type for the algorithm is never used', async (t) => {
  const jwks = {
    keys: [
      { kty: 'oct', k: base64url(fixtures.rsaPublicPem()), kid: 'oct-key' },
      publicJwk(fixtures.ecPublicPem(), { kid: 'ec-key' }),
    ],
  }
  const dir = t.testdir({ 'jwks.json': JSON.stringify(jwks) })
  const { principal, logs } = await createVerifier(t, {
    ...RS,
    jwks_file: `${dir}/jwks.json`,
    jwks_watch: false,
  })
  t.equal((logs.text.match(/JWKS entry skipped/g) ?? []).length, 2)
  const hmacForged = await signJwt(
    { sub: 'x' },
    { alg: 'HS256', key: fixtures.rsaPublicPem(), kid: 'oct-key' },
  )
  t.equal((await gatewayErrorOf(() => principal(hmacForged))).reason, 'jwt.algorithm')
  t.equal(
    (await principal(await legit({ sub: 'a' }, { kid: 'ec-key' }))).userId,
    'a',
    'unknown kid: static key',
  )
})
