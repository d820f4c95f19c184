import t from 'tap'
import { extractCredential, missingJwtText } from '../../../../src/auth/extract-credential.js'
import { signRawHs } from '../../../helpers/jwt.js'
import { authConfig, gatewayErrorOf, inbound } from '../helpers.js'
import { createVerifier, hs, J } from './setup.js'

/** AgentOS checklist part B (docs/agentos-compatibility.md, "Conformance checklist"), lines 40–43, named by number; no HTTP needed. */

void t.test(
  '40: validate false: no token → Authorization header missing; any secret passes',
  async (t) => {
    const settings = { validate: false }
    t.equal(extractCredential(inbound([]), authConfig(settings)), undefined)
    t.equal(missingJwtText(authConfig(settings)), 'Authorization header missing')
    const { principal } = await createVerifier(t, settings)
    t.hasStrict(
      await principal(await hs({ sub: 'alice', scopes: ['agents:read'] }, 'any-secret')),
      {
        authenticated: true,
        userId: 'alice',
        scopes: ['agents:read'],
      },
    )
  },
)

void t.test(
  '41: validate false, authorization on: garbage → unauthenticated, scopes [], user null',
  async (t) => {
    const { principal } = await createVerifier(t, { validate: false, authorization: true })
    for (const token of ['not-a-jwt', 'a.b.c', 'e30.bm90LWpzb24.', '!!.!!.!!']) {
      t.hasStrict(
        await principal(token),
        {
          kind: 'jwt',
          authenticated: false,
          userId: null,
          scopes: [],
          authorizationEnabled: true,
        },
        token,
      )
    }
  },
)

void t.test(
  '42: validate false: expired and HS512 tokens are accepted; audience never checked',
  async (t) => {
    const { principal, clock } = await createVerifier(t, {
      validate: false,
      verify_audience: true,
      service_id: 'os-1',
    })
    const expired = await principal(await hs({ sub: 'a', exp: clock.seconds - 3600, aud: 'other' }))
    t.hasStrict(expired, { authenticated: true, userId: 'a', expiresAt: null })
    t.ok((await principal(await hs({ sub: 'b' }, 'x', 'HS512'))).authenticated)
    t.ok(
      (await principal(signRawHs('{"alg":"none"}', '{"sub":"c"}', 'x'))).authenticated,
      'nothing checked',
    )
    const error = await gatewayErrorOf(async () => principal(await hs({ sub: 'sa:evil' }, 'x')))
    t.equal(error.detail, 'Invalid token subject', 'reserved subjects are still refused')
  },
)

void t.test('43: a non-jose failure during decode → Error decoding token', async (t) => {
  const { principal, logs } = await createVerifier(t, J, {
    verifyJws: async () => {
      throw new TypeError('key unusable')
    },
  })
  const error = await gatewayErrorOf(async () => principal(await hs({ sub: 'a' })))
  t.equal(error.status, 401)
  t.match(error.detail, /^Error decoding token: /)
  t.match(logs.text, 'JWT verification failed unexpectedly')
})
