import t from 'tap'
import { extractCredential } from '../../../../src/auth/extract-credential.js'
import { authConfig, gatewayErrorOf, inbound } from '../helpers.js'
import { createVerifier, hs, J, K } from './setup.js'

/** AgentOS checklist part B (docs/agentos-compatibility.md, "Conformance checklist"), lines 11–26, named by number; no HTTP needed. */

void t.test('11, 12, 26: not three segments → Invalid token: Not enough segments', async (t) => {
  const { verifier } = await createVerifier(t, J)
  for (const value of ['Bearer abc', 'Bearer', 'Bearer root-key-5f0c8e2a9b7d4c1e6a3f8b0d']) {
    const credential = extractCredential(inbound(['Authorization', value]), authConfig(J))
    if (credential === undefined) throw new Error('no credential')
    const error = await gatewayErrorOf(() => verifier.verify(credential))
    t.equal(error.status, 401, value)
    t.equal(error.detail, 'Invalid token: Not enough segments', value)
    t.equal(error.reason, 'jwt.malformed')
  }
})

void t.test('13, 14, 15: scheme handling end to end', async (t) => {
  const { verifier } = await createVerifier(t, J)
  const jwt = await hs({ sub: 'alice', scopes: ['agents:read'] })
  for (const value of [jwt, `bearer ${jwt}`]) {
    const credential = extractCredential(inbound(['Authorization', value]), authConfig(J))
    if (credential === undefined) throw new Error('no credential')
    t.hasStrict(await verifier.verify(credential), { userId: 'alice' })
  }
  const glued = extractCredential(inbound(['Authorization', `Bearer${jwt}`]), authConfig(J))
  if (glued === undefined) throw new Error('no credential')
  t.equal((await gatewayErrorOf(() => verifier.verify(glued))).status, 401, '15')
})

void t.test('16: expired → Token has expired', async (t) => {
  const { principal, clock } = await createVerifier(t, J)
  const jwt = await hs({ sub: 'alice', exp: clock.seconds - 3600 })
  const error = await gatewayErrorOf(() => principal(jwt))
  t.equal(error.status, 401)
  t.equal(error.code, 'TOKEN_EXPIRED')
  t.equal(error.detail, 'Token has expired')
  t.equal(error.reason, 'jwt.expired')
})

void t.test('17: exp 5 s ago is within the 10 s leeway', async (t) => {
  const { principal, clock } = await createVerifier(t, J)
  const exp = clock.seconds - 5
  t.equal((await principal(await hs({ sub: 'alice', exp }))).expiresAt, exp)
  const error = await gatewayErrorOf(async () =>
    principal(await hs({ sub: 'a', exp: clock.seconds - 11 })),
  )
  t.equal(error.detail, 'Token has expired', 'beyond the leeway')
})

void t.test('18: another key → Invalid token: Signature verification failed', async (t) => {
  const { principal } = await createVerifier(t, J)
  const error = await gatewayErrorOf(async () =>
    principal(await hs({ sub: 'a' }, 'another-secret')),
  )
  t.equal(error.detail, 'Invalid token: Signature verification failed')
  t.equal(error.reason, 'jwt.signature')
})

void t.test(
  '19: HS512 while HS256 is configured → The specified alg value is not allowed',
  async (t) => {
    const { principal } = await createVerifier(t, J)
    const error = await gatewayErrorOf(async () => principal(await hs({ sub: 'a' }, K, 'HS512')))
    t.equal(error.detail, 'Invalid token: The specified alg value is not allowed')
    t.equal(error.reason, 'jwt.algorithm')
  },
)

void t.test('20: no exp is fine', async (t) => {
  const { principal } = await createVerifier(t, J)
  const result = await principal(await hs({ sub: 'alice', scopes: ['agents:read'] }))
  t.hasStrict(result, { authenticated: true, expiresAt: null, scopes: ['agents:read'] })
})

void t.test('21: nbf in the future → not yet valid (nbf); iat in the future → (iat)', async (t) => {
  const { principal, clock } = await createVerifier(t, J)
  let error = await gatewayErrorOf(async () =>
    principal(await hs({ sub: 'a', nbf: clock.seconds + 3600 })),
  )
  t.equal(error.detail, 'Invalid token: The token is not yet valid (nbf)')
  t.equal(error.reason, 'jwt.not_yet_valid')
  error = await gatewayErrorOf(async () =>
    principal(await hs({ sub: 'a', iat: clock.seconds + 3600 })),
  )
  t.equal(error.detail, 'Invalid token: The token is not yet valid (iat)')
  t.equal(error.reason, 'jwt.not_yet_valid')
  t.ok(
    await principal(await hs({ sub: 'a', nbf: clock.seconds + 5, iat: clock.seconds + 5 })),
    'within the leeway',
  )
})

void t.test('22, 23, 24: reserved subjects → Invalid token subject', async (t) => {
  const { principal } = await createVerifier(t, J)
  for (const sub of ['sa:x', '__scheduler__', '__oauth__:c']) {
    const error = await gatewayErrorOf(async () =>
      principal(await hs({ sub, scopes: ['os:admin'] })),
    )
    t.equal(error.status, 401, sub)
    t.equal(error.detail, 'Invalid token subject', sub)
    t.equal(error.reason, 'jwt.reserved_subject')
  }
  t.equal(
    (await principal(await hs({ sub: 'xsa:x' }))).userId,
    'xsa:x',
    'only the prefix is reserved',
  )
  t.equal((await principal(await hs({ sub: '__scheduler__x' }))).userId, '__scheduler__x')
  t.equal(
    (await gatewayErrorOf(async () => principal(await hs({ sub: 7 })))).detail,
    'Invalid token: Subject must be a string',
    'a non-string subject is refused by PyJWT before the reserved check',
  )
})

void t.test('25: no sub → authenticated with user id null', async (t) => {
  const { principal } = await createVerifier(t, J)
  t.hasStrict(await principal(await hs({ scopes: ['agents:read'] })), {
    authenticated: true,
    userId: null,
  })
})
