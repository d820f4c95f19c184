import t from 'tap'
import { extractCredential, missingCredentialError } from '../../../src/auth/extract-credential.js'
import { SecurityKeyVerifier } from '../../../src/auth/security-key-verifier.js'
import { fixtures, signJwt } from '../../helpers/jwt.js'
import { authConfig, bearer, gatewayErrorOf, inbound } from './helpers.js'

const auth = authConfig({
  security_key: 'root-key-5f0c8e2a9b7d4c1e6a3f8b0d',
  internal_service_token: 'itok-scheduler-3e9a7c1f5b2d8e4a6c0f',
})
const verifier = new SecurityKeyVerifier(auth)
const request = inbound([])

async function verifyHeader(value: string) {
  const credential = extractCredential(inbound(['Authorization', value]), auth)
  if (credential === undefined) throw new Error('no credential')
  return verifier.verify(credential)
}

void t.test('79: no credential → 401 Authorization header required', async (t) => {
  t.equal(extractCredential(request, auth), undefined)
  const error = missingCredentialError(auth, 'security_key')
  t.equal(error.status, 401)
  t.equal(error.detail, 'Authorization header required')
})

void t.test('80: a wrong key → 401 Invalid authentication token', async (t) => {
  const error = await gatewayErrorOf(() => verifyHeader('Bearer nope'))
  t.equal(error.status, 401)
  t.equal(error.code, 'TOKEN_INVALID')
  t.equal(error.detail, 'Invalid authentication token')
  t.equal(error.reason, 'security_key.mismatch')
})

void t.test(
  '81: the key without a scheme passes; Basic root-key-5f0c8e2a9b7d4c1e6a3f8b0d does not',
  async (t) => {
    t.match(await verifyHeader('root-key-5f0c8e2a9b7d4c1e6a3f8b0d'), { kind: 'security_key' })
    const error = await gatewayErrorOf(() =>
      verifyHeader('Basic root-key-5f0c8e2a9b7d4c1e6a3f8b0d'),
    )
    t.equal(error.detail, 'Invalid authentication token')
  },
)

void t.test('82: the key is an unscoped root', async (t) => {
  const principal = await verifyHeader('Bearer root-key-5f0c8e2a9b7d4c1e6a3f8b0d')
  t.same(principal, {
    kind: 'security_key',
    authenticated: true,
    userId: null,
    sessionId: null,
    scopes: null,
    authorizationEnabled: false,
    expiresAt: null,
  })
  t.ok(Object.isFrozen(principal))
})

void t.test('83: any JWT is refused', async (t) => {
  const jwt = await signJwt(
    { sub: 'alice', scopes: ['os:admin'] },
    { alg: 'HS256', key: fixtures.hmacSecret() },
  )
  const error = await gatewayErrorOf(() => verifier.verify(bearer(jwt)))
  t.equal(error.detail, 'Invalid authentication token')
  const near = await gatewayErrorOf(() =>
    verifier.verify(bearer('root-key-5f0c8e2a9b7d4c1e6a3f8b0d ')),
  )
  t.equal(near.status, 401, 'not trimmed again by the verifier')
})

void t.test('needs a configured key', async (t) => {
  t.throws(() => new SecurityKeyVerifier(authConfig()), /security_key/)
})
