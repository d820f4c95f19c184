/**
 * Checklist part B, lines 27–43: audience, JWKS and static keys, token sources, `validate: false`,
 * on the AgentOS line of the test file (line.ts): 3.0 kept its public routes and key sources.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { JwtVerifier } from '../../src/auth/jwt/index.js'
import { GatewayError } from '../../src/errors.js'
import { createLogger } from '../../src/logger.js'
import { testConfig } from '../helpers/gateway.js'
import { fixtures, publicJwk, signJwt } from '../helpers/jwt.js'
import {
  forwarded,
  identityHeadersSeen,
  jConfig,
  jwt,
  now,
  refused,
  upstreamHeader,
} from './fixtures.js'
import { lineRuntime, stackOnLine } from './line.js'

const runtime = await lineRuntime(t)
const JA = await stackOnLine(t, runtime, jConfig({ verify_audience: true }))
const dir = mkdtempSync(join(tmpdir(), 'portcullis-jwks-'))
t.teardown(() => rmSync(dir, { recursive: true, force: true }))

const AUDIENCE_MISSING =
  'Invalid token: Token is missing the "aud" claim. Audience verification requires this claim to be present in the token.'
const AUDIENCE_MISMATCH = 'Invalid token audience - token not valid for this AgentOS instance'

const withAud = (aud: unknown) => jwt(['agents:read'], { claims: { aud } })
const rs256 = (key: 'rsa' | 'rsa2', kid?: string) =>
  signJwt(
    { sub: `signed-by-${key}`, scopes: ['agents:read'], exp: now() + 3600 },
    {
      alg: 'RS256',
      key: key === 'rsa' ? fixtures.rsaPrivate() : fixtures.rsa2Private(),
      ...(kid === undefined ? {} : { kid }),
    },
  )
function jwksFile(name: string, keys: Record<string, unknown>[]): string {
  const path = join(dir, name)
  writeFileSync(path, JSON.stringify({ keys }))
  return path
}
const rsaConfig = (auth: Record<string, unknown>) =>
  jConfig({ verification_keys: null, algorithm: 'RS256', ...auth })

void t.test(`JWT-12 JA: no aud → 401 "${AUDIENCE_MISSING}"`, async (t) => {
  refused(
    t,
    await JA.call('GET', '/agents', { token: await jwt(['agents:read']) }),
    401,
    AUDIENCE_MISSING,
  )
})

void t.test(`JWT-12 JA: aud "other" → 401 "${AUDIENCE_MISMATCH}"`, async (t) => {
  refused(
    t,
    await JA.call('GET', '/agents', { token: await withAud('other') }),
    401,
    AUDIENCE_MISMATCH,
  )
})

void t.test('JWT-12 JA: aud "os-1" → 200; aud ["x","os-1"] → 200', async (t) => {
  forwarded(t, await JA.call('GET', '/agents', { token: await withAud('os-1') }), 200)
  forwarded(t, await JA.call('GET', '/agents', { token: await withAud(['x', 'os-1']) }), 200)
})

void t.test(
  'JWT-12 audience "explicit-aud": aud "os-1" → 401 mismatch; "explicit-aud" → 200',
  async (t) => {
    const gw = await stackOnLine(
      t,
      runtime,
      jConfig({ verify_audience: true, audience: 'explicit-aud' }),
    )
    refused(
      t,
      await gw.call('GET', '/agents', { token: await withAud('os-1') }),
      401,
      AUDIENCE_MISMATCH,
    )
    forwarded(t, await gw.call('GET', '/agents', { token: await withAud('explicit-aud') }), 200)
  },
)

void t.test(
  'JWT-12 audience [aud-1, aud-2]: ["aud-1","other"] → 200; ["w1","w2"] → 401',
  async (t) => {
    const gw = await stackOnLine(
      t,
      runtime,
      jConfig({ verify_audience: true, audience: ['aud-1', 'aud-2'] }),
    )
    forwarded(t, await gw.call('GET', '/agents', { token: await withAud(['aud-1', 'other']) }), 200)
    refused(
      t,
      await gw.call('GET', '/agents', { token: await withAud(['w1', 'w2']) }),
      401,
      AUDIENCE_MISMATCH,
    )
  },
)

void t.test('JWT-12 verify_audience off (J): any aud, or none → 200', async (t) => {
  const J = await stackOnLine(t, runtime, jConfig())
  for (const token of [await withAud('other'), await withAud(['w1']), await jwt(['agents:read'])]) {
    forwarded(t, await J.call('GET', '/agents', { token }), 200)
  }
})

void t.test(
  'JWT-12 audience_claim custom_aud, verify on, claim missing → 401 naming "custom_aud"',
  async (t) => {
    const gw = await stackOnLine(
      t,
      runtime,
      jConfig({ verify_audience: true, audience_claim: 'custom_aud' }),
    )
    const reply = await gw.call('GET', '/agents', { token: await withAud('os-1') })
    refused(t, reply, 401, AUDIENCE_MISSING.replace('"aud"', '"custom_aud"'))
    forwarded(
      t,
      await gw.call('GET', '/agents', {
        token: await jwt(['agents:read'], { claims: { custom_aud: 'os-1' } }),
      }),
      200,
    )
  },
)

void t.test(
  'JWT-8 JWKS (RS256, kid test-key-1 plus a kid-less key): right kid → 200; unknown kid → 401; no kid → the kid-less key, 200; right kid, wrong signer → 401',
  async (t) => {
    const gw = await stackOnLine(t, runtime, rsaConfig({ jwks_file: fixtures.jwksPath }))
    const ok = await gw.call('GET', '/agents', { token: await rs256('rsa', 'test-key-1') })
    forwarded(t, ok, 200)
    t.equal(upstreamHeader(ok, 'x-auth-user-id'), 'signed-by-rsa')
    const wrongKid = await gw.call('GET', '/agents', { token: await rs256('rsa', 'wrong-key-id') })
    refused(t, wrongKid, 401, 'Invalid token: Signature verification failed')
    forwarded(t, await gw.call('GET', '/agents', { token: await rs256('rsa2') }), 200)
    const wrongSigner = await gw.call('GET', '/agents', {
      token: await rs256('rsa2', 'test-key-1'),
    })
    refused(t, wrongSigner, 401, 'Invalid token: Signature verification failed')
    // Without a kid-less entry and without static keys, an unknown kid finds no key at all.
    const only = jwksFile('only-kid.json', [
      publicJwk(fixtures.rsaPublicPem(), { kid: 'test-key-1' }),
    ])
    const strict = await stackOnLine(t, runtime, rsaConfig({ jwks_file: only }))
    const none = await strict.call('GET', '/agents', { token: await rs256('rsa', 'wrong-key-id') })
    refused(t, none, 401, 'Invalid token: No verification keys configured')
  },
)

void t.test('JWT-8 JWKS plus an HS256 static key: HS256 token without kid → 200', async (t) => {
  const gw = await stackOnLine(t, runtime, jConfig({ jwks_file: fixtures.jwksPath }))
  forwarded(t, await gw.call('GET', '/agents', { token: await jwt(['agents:read']) }), 200)
})

void t.test('JWT-7 JWT_JWKS_FILE is used without jwks_file; jwks_file wins over it', async (t) => {
  const fromFile = jwksFile('file.json', [publicJwk(fixtures.rsaPublicPem(), { kid: 'file-key' })])
  const fromEnv = jwksFile('env.json', [publicJwk(fixtures.rsa2PublicPem(), { kid: 'env-key' })])
  const envOnly = await stackOnLine(t, runtime, rsaConfig({}), { JWT_JWKS_FILE: fromEnv })
  forwarded(t, await envOnly.call('GET', '/agents', { token: await rs256('rsa2', 'env-key') }), 200)
  const both = await stackOnLine(t, runtime, rsaConfig({ jwks_file: fromFile }), {
    JWT_JWKS_FILE: fromEnv,
  })
  forwarded(t, await both.call('GET', '/agents', { token: await rs256('rsa', 'file-key') }), 200)
  const envKey = await both.call('GET', '/agents', { token: await rs256('rsa2', 'env-key') })
  refused(t, envKey, 401, 'Invalid token: No verification keys configured')
})

void t.test(
  `AUTH-2 token_source cookie, cookie_name jwt_token: none → 401; valid cookie → 200`,
  async (t) => {
    const gw = await stackOnLine(
      t,
      runtime,
      jConfig({ token_source: 'cookie', cookie_name: 'jwt_token' }),
    )
    refused(t, await gw.call('GET', '/agents'), 401, "JWT cookie 'jwt_token' missing")
    const token = await jwt(['agents:read'])
    const reply = await gw.call('GET', '/agents', {
      headers: { cookie: `theme=dark; jwt_token=${token}` },
    })
    forwarded(t, reply, 200)
    t.equal(upstreamHeader(reply, 'cookie'), 'theme=dark', 'the JWT cookie is not forwarded')
  },
)

void t.test(
  'AUTH-2 token_source both, cookie jwt_cookie: header wins; cookie alone works; neither → 401',
  async (t) => {
    const gw = await stackOnLine(
      t,
      runtime,
      jConfig({ token_source: 'both', cookie_name: 'jwt_cookie' }),
    )
    const header = await jwt(['agents:read'], { sub: 'from-header' })
    const cookie = `jwt_cookie=${await jwt(['agents:read'], { sub: 'from-cookie' })}`
    const bothSent = await gw.call('GET', '/agents', { token: header, headers: { cookie } })
    t.equal(upstreamHeader(bothSent, 'x-auth-user-id'), 'from-header')
    const cookieOnly = await gw.call('GET', '/agents', { headers: { cookie } })
    t.equal(upstreamHeader(cookieOnly, 'x-auth-user-id'), 'from-cookie')
    refused(
      t,
      await gw.call('GET', '/agents'),
      401,
      "JWT token missing from both Authorization header and 'jwt_cookie' cookie",
    )
  },
)

void t.test(
  'AUTH-2 token_header_key X-Auth-Token: that header → 200; Authorization alone → 401',
  async (t) => {
    const gw = await stackOnLine(t, runtime, jConfig({ token_header_key: 'X-Auth-Token' }))
    const token = await jwt(['agents:read'])
    const reply = await gw.call('GET', '/agents', { headers: { 'x-auth-token': token } })
    forwarded(t, reply, 200)
    t.equal(upstreamHeader(reply, 'x-auth-token'), undefined, 'the credential is not forwarded')
    refused(t, await gw.call('GET', '/agents', { token }), 401, 'Authorization header missing')
  },
)

const unverified = (auth: Record<string, unknown> = {}) =>
  jConfig({ verification_keys: null, validate: false, authorization: null, ...auth })

void t.test(
  'JWT-11 validate false: no token → 401; a token signed with any secret → 200',
  async (t) => {
    const gw = await stackOnLine(t, runtime, unverified())
    refused(t, await gw.call('GET', '/agents'), 401, 'Authorization header missing')
    const token = await jwt([], { key: 'any secret at all, nobody checks' })
    forwarded(t, await gw.call('GET', '/agents', { token }), 200)
  },
)

void t.test(
  'JWT-11 validate false, authorization on: "Bearer not-a-jwt" → 403 on GET /memories; an unmapped route passes unauthenticated',
  async (t) => {
    const gw = await stackOnLine(t, runtime, unverified({ authorization: true }))
    const mapped = await gw.call('GET', '/memories', { token: 'not-a-jwt' })
    refused(t, mapped, 403, 'Insufficient permissions. Required scope(s): memories:read')
    const unmapped = await gw.call('GET', '/echo/unmapped', { token: 'not-a-jwt' })
    forwarded(t, unmapped, 200, '/echo/unmapped')
    t.same(
      identityHeadersSeen(unmapped.upstream),
      [],
      'authenticated=false: no identity, no user id',
    )
  },
)

void t.test('JWT-11 validate false: an expired or HS512-signed token → accepted', async (t) => {
  const gw = await stackOnLine(t, runtime, unverified())
  forwarded(
    t,
    await gw.call('GET', '/agents', { token: await jwt([], { exp: now() - 3600 }) }),
    200,
  )
  forwarded(t, await gw.call('GET', '/agents', { token: await jwt([], { alg: 'HS512' }) }), 200)
})

void t.test(
  'JWT-9 (verifier layer: no token reaches this through the gateway, keys are checked at start) a non-JOSE failure while decoding → 401 "Error decoding token: <Portcullis reason>"',
  async (t) => {
    const auth = testConfig(jConfig()).auth
    const verifier = await JwtVerifier.create(auth, {
      logger: createLogger({ level: 'silent' }),
      verifyJws: () => Promise.reject(new TypeError('key unusable')),
    })
    const token = await jwt(['agents:read'])
    const error = await Promise.resolve()
      .then(() => verifier.verify({ token, source: 'header' }))
      .then(
        () => undefined,
        (thrown: unknown) => thrown,
      )
    t.ok(error instanceof GatewayError)
    t.equal((error as GatewayError).status, 401)
    t.equal(
      (error as GatewayError).detail,
      'Error decoding token: the verification key could not be used',
    )
  },
)
