import t from 'tap'
import { JWT_FAILURE_REASONS, webSocketJwtError } from '../../../../src/auth/jwt/index.js'
import { keysUnavailable } from '../../../../src/auth/jwt/jwt-errors.js'
import { GatewayError } from '../../../../src/errors.js'
import { signJwt } from '../../../helpers/jwt.js'
import { gatewayErrorOf } from '../helpers.js'
import { createVerifier, J, K } from './setup.js'

/** WS-1: the auth_error frame texts for a refused JWT. */

void t.test('HTTP failures map to the WebSocket texts', async (t) => {
  const { principal, clock } = await createVerifier(t, { ...J, verify_audience: true })
  const hs = (claims: Record<string, unknown>, alg = 'HS256') => signJwt(claims, { alg, key: K })
  const cases: [() => Promise<string>, string, 'expired' | 'invalid_token'][] = [
    [() => hs({ aud: 'os-1', exp: clock.seconds - 3600 }), 'Signature has expired', 'expired'],
    [async () => 'abc', 'Not enough segments', 'invalid_token'],
    [() => hs({ aud: 'os-1', sub: 'sa:x' }), 'Invalid token subject', 'invalid_token'],
    [() => hs({ aud: 'os-1' }, 'HS512'), 'The specified alg value is not allowed', 'invalid_token'],
    [
      () => hs({ aud: 'os-1', nbf: clock.seconds + 3600 }),
      'The token is not yet valid (nbf)',
      'invalid_token',
    ],
    [() => hs({ aud: 'other' }), 'Invalid audience', 'invalid_token'],
    [
      () => hs({}),
      'Token is missing the "aud" claim. Audience verification requires this claim to be present in the token.',
      'invalid_token',
    ],
    [async () => 'x'.repeat(9000), 'Token is too large', 'invalid_token'],
  ]
  for (const [token, error, type] of cases) {
    const failure = await gatewayErrorOf(async () => principal(await token()))
    t.same(webSocketJwtError(failure), { error, error_type: type }, error)
  }
  const signature = await gatewayErrorOf(async () =>
    principal(await signJwt({}, { alg: 'HS256', key: 'other' })),
  )
  t.same(webSocketJwtError(signature), {
    error: 'Signature verification failed',
    error_type: 'invalid_token',
  })
})

void t.test('other texts', async (t) => {
  const decoding = new GatewayError('TOKEN_INVALID', 'Error decoding token: boom', {
    reason: 'jwt.key_unusable',
  })
  t.same(webSocketJwtError(decoding), { error: 'boom', error_type: 'invalid_token' })
  const empty = new GatewayError('TOKEN_INVALID', 'Invalid token: ', { reason: 'jwt.malformed' })
  t.same(webSocketJwtError(empty), { error: 'Invalid token', error_type: 'invalid_token' })
  t.equal(JWT_FAILURE_REASONS.length, 16)
})

void t.test('the remote key set unavailable: the 503 text, not an expiry', async (t) => {
  t.same(webSocketJwtError(keysUnavailable(false, 5)), {
    error:
      "Authentication is temporarily unavailable: the identity provider's signing keys could not be fetched",
    error_type: 'invalid_token',
  })
  t.same(webSocketJwtError(keysUnavailable(true, 5)), {
    error:
      "Authentication is temporarily unavailable: the identity provider's signing keys are out of date and cannot be refreshed",
    error_type: 'invalid_token',
  })
})
