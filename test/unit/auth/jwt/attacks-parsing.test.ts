import t from 'tap'
import { NOT_RESPONSIBLE } from '../../../../src/auth/verifier.js'
import { base64url, rawJwt, signRawHs } from '../../../helpers/jwt.js'
import { bearer, gatewayErrorOf } from '../helpers.js'
import { createVerifier, J, K } from './setup.js'

/** Attack class 23 (parsing DoS) and malformed tokens: refused early, in PyJWT's words. */

void t.test('23: size is capped before parsing; dots and deep JSON do no harm', async (t) => {
  const { principal } = await createVerifier(t, { ...J, max_token_bytes: 4096 })
  let error = await gatewayErrorOf(() => principal('x'.repeat(4097)))
  t.equal(error.detail, 'Invalid token: Token is too large')
  t.equal(error.reason, 'jwt.too_large')
  error = await gatewayErrorOf(() => principal('é'.repeat(2049)))
  t.equal(error.reason, 'jwt.too_large', 'bytes, not characters')
  error = await gatewayErrorOf(() => principal('.'.repeat(4000)))
  t.equal(error.detail, 'Invalid token: Not enough segments')

  const deep = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`
  const deepHeader = signRawHs(`{"alg":"HS256","x":${deep(1200)}}`, '{"sub":"a"}', K)
  t.equal((await principal(deepHeader)).userId, 'a')
  const deepPayload = signRawHs('{"alg":"HS256"}', `{"sub":"a","x":${deep(1200)}}`, K)
  const result = await principal(deepPayload)
  t.ok(Object.isFrozen(result.claims?.x), 'deep claims frozen')

  const open = await createVerifier(t, { validate: false, max_token_bytes: 65_536 })
  const veryDeep = rawJwt({ alg: 'none' }, `{"sub":"a","x":${deep(20_000)}}`)
  t.equal((await open.principal(veryDeep)).userId, 'a', 'no recursion limit is hit')
  error = await gatewayErrorOf(() => open.principal('x'.repeat(65_537)))
  t.equal(error.reason, 'jwt.too_large', 'the cap also holds without validation')
})

void t.test('malformed segments and claims', async (t) => {
  const { principal } = await createVerifier(t, J)
  const cases: [string, string][] = [
    ['@@.e30.sig', 'Invalid token: Invalid header padding'],
    ['e30.@@.sig', 'Invalid token: Invalid payload padding'],
    ['e30.e30.s=g', 'Invalid token: Invalid crypto padding'],
    [`${base64url('[1]')}.e30.sig`, 'Invalid token: Invalid header string: must be a json object'],
    [
      `${base64url('not json')}.e30.sig`,
      'Invalid token: Invalid header string: must be a json object',
    ],
  ]
  for (const [token, detail] of cases) {
    t.equal((await gatewayErrorOf(() => principal(token))).detail, detail, token)
  }
  for (const payload of ['[]', '"text"', '42', 'not json']) {
    const error = await gatewayErrorOf(() => principal(signRawHs('{"alg":"HS256"}', payload, K)))
    t.equal(error.detail, 'Invalid token: Invalid payload string: must be a json object', payload)
  }
  const badExp = signRawHs('{"alg":"HS256"}', '{"sub":"a","exp":"soon"}', K)
  t.equal(
    (await gatewayErrorOf(() => principal(badExp))).detail,
    'Invalid token: Expiration Time claim (exp) must be an integer.',
  )
  const badNbf = signRawHs('{"alg":"HS256"}', '{"sub":"a","nbf":"soon"}', K)
  t.equal((await gatewayErrorOf(() => principal(badNbf))).reason, 'jwt.claims')
})

void t.test('service-account tokens are not a JWT verifier concern', async (t) => {
  const { verifier } = await createVerifier(t, J)
  t.equal(await verifier.verify(bearer('svc_pat_abc')), NOT_RESPONSIBLE)
  const open = await createVerifier(t, { validate: false })
  t.equal(await open.verifier.verify(bearer('svc_pat_abc')), NOT_RESPONSIBLE)
})
