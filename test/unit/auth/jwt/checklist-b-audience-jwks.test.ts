import t from 'tap'
import { applyEnvironment } from '../../../../src/config/env.js'
import { fixtures, publicJwk, signJwt } from '../../../helpers/jwt.js'
import { authConfig, gatewayErrorOf } from '../helpers.js'
import { createVerifier, hs, J, K } from './setup.js'

/** AgentOS checklist part B (docs/agentos-compatibility.md, "Conformance checklist"), lines 27–36, named by number; no HTTP needed. */

void t.test('27–29: JA (verify_audience, expected os-1)', async (t) => {
  const { principal } = await createVerifier(t, { ...J, verify_audience: true })
  let error = await gatewayErrorOf(async () => principal(await hs({ sub: 'a' })))
  t.equal(
    error.detail,
    'Invalid token: Token is missing the "aud" claim. Audience verification requires this claim to be present in the token.',
  )
  t.equal(error.reason, 'jwt.audience_missing')
  error = await gatewayErrorOf(async () => principal(await hs({ sub: 'a', aud: 'other' })))
  t.equal(error.detail, 'Invalid token audience - token not valid for this AgentOS instance')
  t.equal(error.reason, 'jwt.audience_mismatch')
  t.ok(await principal(await hs({ sub: 'a', aud: 'os-1' })))
  t.ok(await principal(await hs({ sub: 'a', aud: ['x', 'os-1'] })))
  for (const aud of [null, '', [], 5, { 'os-1': true }, ['OS-1']]) {
    const failure = await gatewayErrorOf(async () => principal(await hs({ sub: 'a', aud })))
    t.equal(failure.status, 401, `aud ${JSON.stringify(aud)}`)
  }
})

void t.test('30: an explicit audience replaces the service id', async (t) => {
  const { principal } = await createVerifier(t, {
    ...J,
    verify_audience: true,
    audience: 'explicit-aud',
  })
  const error = await gatewayErrorOf(async () => principal(await hs({ aud: 'os-1' })))
  t.equal(error.reason, 'jwt.audience_mismatch')
  t.ok(await principal(await hs({ aud: 'explicit-aud' })))
})

void t.test('31: a list of audiences: any shared element passes', async (t) => {
  const { principal } = await createVerifier(t, {
    ...J,
    verify_audience: true,
    audience: ['aud-1', 'aud-2'],
  })
  t.ok(await principal(await hs({ aud: ['aud-1', 'other'] })))
  const error = await gatewayErrorOf(async () => principal(await hs({ aud: ['w1', 'w2'] })))
  t.equal(error.reason, 'jwt.audience_mismatch')
})

void t.test('32: verify_audience off → any aud or none', async (t) => {
  const { principal } = await createVerifier(t, J)
  for (const aud of [undefined, 'other', ['x'], 5]) t.ok(await principal(await hs({ aud })))
})

void t.test('33: a custom audience claim, missing', async (t) => {
  const { principal } = await createVerifier(t, {
    ...J,
    verify_audience: true,
    audience_claim: 'custom_aud',
  })
  const error = await gatewayErrorOf(async () => principal(await hs({ aud: 'os-1' })))
  t.match(error.detail, 'missing the "custom_aud" claim')
  t.ok(await principal(await hs({ custom_aud: 'os-1' })))
})

const rs = (claims: Record<string, unknown>, kid?: string, key = fixtures.rsaPrivate()) =>
  signJwt(claims, { alg: 'RS256', key, ...(kid === undefined ? {} : { kid }) })

void t.test('34: JWKS file (RS256, kid test-key-1, plus a kid-less entry)', async (t) => {
  const { principal } = await createVerifier(t, { jwks_file: fixtures.jwksPath, jwks_watch: false })
  t.equal((await principal(await rs({ sub: 'a' }, 'test-key-1'))).userId, 'a', 'right kid')
  let error = await gatewayErrorOf(async () => principal(await rs({ sub: 'a' }, 'wrong-key-id')))
  t.equal(error.status, 401, 'wrong kid: falls back to the kid-less key, which did not sign it')
  t.equal(error.detail, 'Invalid token: Signature verification failed')
  t.equal(
    (await principal(await rs({ sub: 'b' }, undefined, fixtures.rsa2Private()))).userId,
    'b',
    'no kid → the kid-less entry',
  )
  error = await gatewayErrorOf(async () =>
    principal(await rs({ sub: 'a' }, 'test-key-1', fixtures.rsa2Private())),
  )
  t.equal(
    error.detail,
    'Invalid token: Signature verification failed',
    'right kid, wrong signing key',
  )
})

void t.test('34: JWKS without a kid-less entry: an unknown kid tries nothing', async (t) => {
  const jwks = { keys: [publicJwk(fixtures.rsaPublicPem(), { kid: 'test-key-1' })] }
  const dir = t.testdir({ 'jwks.json': JSON.stringify(jwks) })
  const { principal } = await createVerifier(t, {
    jwks_file: `${dir}/jwks.json`,
    jwks_watch: false,
  })
  const error = await gatewayErrorOf(async () => principal(await rs({ sub: 'a' }, 'wrong-key-id')))
  t.equal(error.detail, 'Invalid token: No verification keys configured')
  t.equal(error.reason, 'jwt.unknown_kid', 'logged and counted as an unknown kid')
})

void t.test(
  '35: JWKS plus an HS256 static key; an HS256 token without kid uses the static key',
  async (t) => {
    const { principal, logs } = await createVerifier(t, {
      jwks_file: fixtures.jwksPath,
      jwks_watch: false,
      verification_keys: [K],
      algorithm: 'HS256',
    })
    t.equal((await principal(await hs({ sub: 'alice' }))).userId, 'alice')
    t.match(
      logs.text,
      'JWKS entry skipped',
      'the RS256 JWKS entries cannot verify HS256 and are skipped',
    )
  },
)

void t.test('36: JWT_JWKS_FILE is used when jwks_file is not given; jwks_file wins', async (t) => {
  const fromEnv = authConfig(
    applyEnvironment({ auth: {} }, { JWT_JWKS_FILE: fixtures.jwksPath }).auth as Record<
      string,
      unknown
    >,
  )
  t.equal(fromEnv.jwks_file, fixtures.jwksPath)
  const { principal } = await createVerifier(t, { jwks_file: fromEnv.jwks_file, jwks_watch: false })
  t.ok(await principal(await rs({ sub: 'a' }, 'test-key-1')))
  const explicit = applyEnvironment(
    { auth: { jwks_file: '/explicit.json' } },
    { JWT_JWKS_FILE: fixtures.jwksPath },
  )
  t.same(explicit.auth, { jwks_file: '/explicit.json' })
})
