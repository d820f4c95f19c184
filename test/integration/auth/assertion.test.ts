/**
 * The signed identity assertion end to end: what the upstream receives verifies against the admin
 * listener's `/.well-known/jwks.json` with jose, states the verified identity, and cannot be forged.
 */
import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify, type JWTPayload } from 'jose'
import t from 'tap'
import { fixtures, signJwt } from '../../helpers/jwt.js'
import { startRuntime } from '../../helpers/runtime.js'
import { jConfig, jwt, now, stack } from '../../conformance/fixtures.js'

const runtime = await startRuntime(t)
const J = await stack(
  t,
  runtime,
  jConfig({ session_id_claim: 'sid' }, { identity: { assertion: { enabled: true } } }),
)
const jwks = createRemoteJWKSet(new URL(`${J.gateway.adminUrl}/.well-known/jwks.json`))

function assertionOf(headers: Record<string, string | string[] | undefined> | undefined): string[] {
  const value = headers?.['x-auth-assertion']
  if (value === undefined) return []
  return Array.isArray(value) ? value : [value]
}

async function verify(token: string | undefined): Promise<JWTPayload> {
  if (token === undefined) throw new Error('no assertion')
  const { payload } = await jwtVerify(token, jwks, {
    issuer: 'portcullis',
    audience: runtime.url,
    algorithms: ['ES256'],
  })
  return payload
}

void t.test(
  'the upstream receives one assertion that verifies with the published keys',
  async (t) => {
    const token = await jwt(['agents:read', 'sessions:read'], {
      sub: 'alice',
      claims: { sid: 's-1' },
    })
    const reply = await J.call('GET', '/agents', { token })
    t.equal(reply.status, 200)
    const received = assertionOf(reply.upstream?.headers)
    t.equal(received.length, 1)
    const payload = await verify(received[0])
    t.match(payload, {
      iss: 'portcullis',
      aud: runtime.url,
      sub: 'alice',
      kind: 'jwt',
      scopes: ['agents:read', 'sessions:read'],
      session_id: 's-1',
    })
    const lifetime = (payload.exp ?? 0) - (payload.iat ?? 0)
    t.ok(lifetime > 0 && lifetime <= 60, `short-lived (${lifetime} s)`)
    t.equal(decodeProtectedHeader(received[0] as string).alg, 'ES256')
  },
)

void t.test('an assertion never outlives the credential it states', async (t) => {
  const exp = now() + 20
  const reply = await J.call('GET', '/echo/short', { token: await jwt([], { exp }) })
  const payload = await verify(assertionOf(reply.upstream?.headers)[0])
  t.ok((payload.exp ?? Infinity) <= exp, 'exp is capped at the token’s')
})

void t.test('a client cannot forge one: its copies are removed on every route', async (t) => {
  const forged = await jwt(['os:admin'], { sub: 'mallory' })
  const spoof = { 'x-auth-assertion': forged, X_Auth_Assertion: forged }
  const authenticated = await J.call('GET', '/echo/forged', {
    token: await jwt([], { sub: 'alice' }),
    headers: spoof,
  })
  const received = assertionOf(authenticated.upstream?.headers)
  t.equal(received.length, 1, 'only ours')
  t.equal((await verify(received[0])).sub, 'alice')
  t.equal(authenticated.upstream?.headers['x_auth_assertion'], undefined)
  const excluded = await J.call('GET', '/health', { headers: spoof })
  t.same(assertionOf(excluded.upstream?.headers), [], 'anonymous: none at all')
  t.equal(excluded.upstream?.headers['x_auth_assertion'], undefined)
})

void t.test(
  'an ES256 token naming a published kid but signed by another key does not verify',
  async (t) => {
    const published = (await (
      await fetch(`${J.gateway.adminUrl}/.well-known/jwks.json`)
    ).json()) as {
      keys: { kid: string }[]
    }
    t.ok(published.keys.length >= 1)
    const forged = await signJwt(
      { iss: 'portcullis', aud: runtime.url, sub: 'mallory', kind: 'jwt', exp: now() + 30 },
      { alg: 'ES256', key: fixtures.ecPrivate(), kid: published.keys[0]?.kid ?? '' },
    )
    await t.rejects(verify(forged))
  },
)
