/**
 * Checklist part B, lines 10–26: credential extraction and JWT validation (J unless noted), on the
 * AgentOS line of the test file (line.ts): 3.0 changed nothing here (`middleware/jwt.py` lost only
 * the deprecated `secret_key=`).
 */
import { createHmac } from 'node:crypto'
import t from 'tap'
import { base64url } from '../helpers/jwt.js'
import {
  ADMIN,
  K,
  forwarded,
  ids,
  jConfig,
  jwt,
  now,
  refused,
  stack,
  upstreamHeader,
  type CallOptions,
} from './fixtures.js'
import { lineRuntime, stackOnLine } from './line.js'

const runtime = await lineRuntime(t)
const J = await stackOnLine(t, runtime, jConfig())
const agents = (options: CallOptions) => J.call('GET', '/agents', options)
const withAuthorization = (value: string): CallOptions => ({ headers: { authorization: value } })
const readToken = () => jwt(['agents:read'])

void t.test(
  'AUTH-2 GET /agents without Authorization → 401 "Authorization header missing"',
  async (t) => {
    refused(t, await agents({}), 401, 'Authorization header missing')
  },
)

void t.test('JWT-9 Bearer abc → 401 "Invalid token: Not enough segments"', async (t) => {
  refused(t, await agents({ token: 'abc' }), 401, 'Invalid token: Not enough segments')
})

void t.test(
  'JWT-9 "Bearer" with nothing after → 401 "Invalid token: Not enough segments"',
  async (t) => {
    const reply = await agents(withAuthorization('Bearer'))
    refused(t, reply, 401, 'Invalid token: Not enough segments')
  },
)

void t.test('AUTH-2 Authorization: <jwt> without a scheme, JWT(agents:read) → 200', async (t) => {
  const reply = await agents(withAuthorization(await readToken()))
  forwarded(t, reply, 200, '/agents')
  t.same(ids(reply.body), ['a1', 'a2'])
  t.equal(upstreamHeader(reply, 'x-auth-user-id'), 'alice')
})

void t.test('AUTH-2 Authorization: bearer <jwt> (lower case) → 200', async (t) => {
  forwarded(t, await agents(withAuthorization(`bearer ${await readToken()}`)), 200, '/agents')
})

void t.test(
  'AUTH-2 Authorization: Bearer<jwt> (no space) → 401; the whole value is the token, so its header is not JSON (Portcullis short reason)',
  async (t) => {
    const reply = await agents(withAuthorization(`Bearer${await readToken()}`))
    refused(t, reply, 401, 'Invalid token: Invalid header string: must be a json object')
  },
)

void t.test('JWT-9 exp = now − 1 h → 401 "Token has expired"', async (t) => {
  const token = await jwt(['agents:read'], { exp: now() - 3600 })
  refused(t, await agents({ token }), 401, 'Token has expired')
})

void t.test('JWT-9 exp = now − 5 s → 200 (10 s leeway)', async (t) => {
  const token = await jwt(['agents:read'], { exp: now() - 5 })
  forwarded(t, await agents({ token }), 200, '/agents')
})

void t.test(
  'JWT-9 signed with another key → 401 "Invalid token: Signature verification failed"',
  async (t) => {
    const token = await jwt(['agents:read'], { key: 'a-different-secret-of-32-bytes!!' })
    refused(t, await agents({ token }), 401, 'Invalid token: Signature verification failed')
  },
)

void t.test(
  'JWT-9 HS512 token with HS256 configured → 401 "Invalid token: The specified alg value is not allowed"',
  async (t) => {
    const token = await jwt(['agents:read'], { alg: 'HS512' })
    refused(
      t,
      await agents({ token }),
      401,
      'Invalid token: The specified alg value is not allowed',
    )
  },
)

void t.test('JWT-9 no exp claim, scopes [agents:read] → 200', async (t) => {
  const token = await jwt(['agents:read'], { exp: null })
  forwarded(t, await agents({ token }), 200, '/agents')
})

void t.test(
  'JWT-9 nbf = now + 1 h → 401 "Invalid token: The token is not yet valid (nbf)"',
  async (t) => {
    const token = await jwt(['agents:read'], { claims: { nbf: now() + 3600 } })
    refused(t, await agents({ token }), 401, 'Invalid token: The token is not yet valid (nbf)')
  },
)

void t.test('JWT-10 JWT(ADMIN, sub="sa:x") → 401 "Invalid token subject"', async (t) => {
  const token = await jwt([ADMIN], { sub: 'sa:x' })
  refused(t, await agents({ token }), 401, 'Invalid token subject')
})

void t.test('JWT-10 JWT(ADMIN, sub="__scheduler__") → 401 "Invalid token subject"', async (t) => {
  const token = await jwt([ADMIN], { sub: '__scheduler__' })
  refused(t, await agents({ token }), 401, 'Invalid token subject')
})

void t.test('JWT-10 JWT(ADMIN, sub="__oauth__:c") → 401 "Invalid token subject"', async (t) => {
  const token = await jwt([ADMIN], { sub: '__oauth__:c' })
  refused(t, await agents({ token }), 401, 'Invalid token subject')
})

void t.test('JWT-10 no sub, scopes [agents:read] → 200, forwarded without a user id', async (t) => {
  const reply = await agents({ token: await jwt(['agents:read'], { sub: null }) })
  forwarded(t, reply, 200, '/agents')
  t.equal(upstreamHeader(reply, 'x-auth-kind'), 'jwt')
  t.equal(upstreamHeader(reply, 'x-auth-user-id'), undefined)
  t.equal(upstreamHeader(reply, 'x-user-id'), undefined)
})

void t.test(
  'AUTH-3 the security key presented while JWT is configured (key also set) → 401 "Invalid token: Not enough segments"',
  async (t) => {
    const both = await stack(
      t,
      runtime,
      jConfig({ security_key: 'root-key-5f0c8e2a9b7d4c1e6a3f8b0d' }),
    )
    const reply = await both.call('GET', '/agents', { token: 'root-key-5f0c8e2a9b7d4c1e6a3f8b0d' })
    refused(t, reply, 401, 'Invalid token: Not enough segments')
    // The key is no JWT, but a JWT still works on that gateway.
    forwarded(t, await both.call('GET', '/agents', { token: await readToken() }), 200)
  },
)

void t.test(
  'Section 12 (PyJWT): segments padded with their correct "=" are accepted; a non-string sub is 401 "Invalid token: Subject must be a string"',
  async (t) => {
    const pad = (segment: string) => segment + '='.repeat((4 - (segment.length % 4)) % 4)
    const header = pad(base64url('{"alg":"HS256","t":12}'))
    const payload = pad(
      base64url(JSON.stringify({ sub: 'padder', scopes: ['agents:read'], exp: now() + 60 })),
    )
    const input = `${header}.${payload}`
    const signature = pad(createHmac('sha256', K).update(input).digest('base64url'))
    t.ok(`${input}.${signature}`.includes('='), 'the token carries padding')
    const reply = await agents({ token: `${input}.${signature}` })
    forwarded(t, reply, 200, '/agents')
    t.equal(upstreamHeader(reply, 'x-auth-user-id'), 'padder')
    const numeric = await jwt(['agents:read'], { exp: null, claims: { sub: 123 }, sub: null })
    refused(t, await agents({ token: numeric }), 401, 'Invalid token: Subject must be a string')
    const boolExp = await jwt(['agents:read'], { exp: null, claims: { exp: true } })
    refused(t, await agents({ token: boolExp }), 401, 'Token has expired')
  },
)
