/**
 * What a refused client is told and what the operator sees: every 401 carries the RFC 6750 §3
 * challenge (a bare `Bearer` without a credential, `error="invalid_token"` for a token presented
 * and refused) beside AgentOS's body; each cause of a refusal has its own reason, and that reason
 * is the same string in the access log and in every metric that counts it.
 */
import { writeFileSync } from 'node:fs'
import t, { type Test } from 'tap'
import { mintToken } from '../../../src/service-accounts/token-format.js'
import { startGateway, type TestGateway } from '../../helpers/gateway.js'
import { fixtures, publicJwk, signJwt } from '../../helpers/jwt.js'
import { accessLogRecord } from '../../helpers/log-records.js'
import { metricValue } from '../../helpers/metrics.js'
import { httpRequest, type HttpResult } from '../../helpers/raw-http.js'
import { startRuntime } from '../../helpers/runtime.js'
import { refusedHandshake } from '../../helpers/websocket.js'

const BARE = 'Bearer'
const INVALID_TOKEN = 'Bearer error="invalid_token"'
const SECURITY_KEY = 'challenges-test-security-key-0123456789'

const runtime = await startRuntime(t)
// Only `test-key-1`: a token naming another kid, or none, has no key to try.
const keyed = t.testdir({
  'jwks.json': JSON.stringify({
    keys: [publicJwk(fixtures.rsaPublicPem(), { kid: 'test-key-1' })],
  }),
})
const emptied = t.testdir({
  'jwks.json': JSON.stringify({
    keys: [publicJwk(fixtures.rsaPublicPem(), { kid: 'test-key-1' })],
  }),
})
const jwt = await startGateway(t, {
  upstream: { url: runtime.url },
  auth: { algorithm: 'RS256', jwks_file: `${keyed}/jwks.json`, authorization: true },
})
const keyless = await startGateway(t, {
  upstream: { url: runtime.url },
  auth: { algorithm: 'RS256', jwks_file: `${emptied}/jwks.json`, jwks_watch: false },
  service_accounts: { enabled: false },
})
const securityKey = await startGateway(t, {
  upstream: { url: runtime.url },
  auth: { security_key: SECURITY_KEY },
  service_accounts: { enabled: false },
})

const inAnHour = () => Math.floor(Date.now() / 1000) + 3600
const rs256 = (claims: Record<string, unknown>, kid?: string) =>
  signJwt(claims, {
    alg: 'RS256',
    key: fixtures.rsaPrivate(),
    ...(kid === undefined ? {} : { kid }),
  })

function call(gateway: TestGateway, token?: string): Promise<HttpResult> {
  return httpRequest(gateway.url, {
    path: '/agents',
    headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
  })
}

/** A 401 with AgentOS's body and this challenge; the reason its access log line carries. */
async function refused(
  t: Test,
  gateway: TestGateway,
  reply: HttpResult,
  detail: string,
  challenge: string,
): Promise<unknown> {
  t.equal(reply.status, 401)
  t.same(reply.json(), { detail }, "AgentOS's body")
  t.equal(reply.headers['content-type'], 'application/json', "Starlette's JSONResponse type")
  t.equal(reply.headers['www-authenticate'], challenge)
  return (await accessLogRecord(gateway.logs, reply.headers['x-request-id'])).reason
}

async function authOutcome(gateway: TestGateway, credential: string, reason: string) {
  return (
    metricValue(await gateway.metrics(), 'portcullis_auth_outcomes_total', {
      credential,
      outcome: 'denied',
      reason,
    }) ?? 0
  )
}

void t.test('no credential: a bare Bearer challenge, no error code (RFC 6750 §3.1)', async (t) => {
  t.equal(
    await refused(t, jwt, await call(jwt), 'Authorization header missing', BARE),
    'credential.missing',
  )
  t.equal(
    await refused(t, securityKey, await call(securityKey), 'Authorization header required', BARE),
    'credential.missing',
  )
  const upgrade = await refusedHandshake(t, `${jwt.url.replace('http', 'ws')}/ws/echo`)
  t.equal(upgrade.status, 401)
  t.equal(upgrade.headers['www-authenticate'], BARE, 'a refused WebSocket upgrade too')
})

void t.test('a token presented and refused: error="invalid_token"', async (t) => {
  const expired = await rs256({ sub: 'u', exp: Math.floor(Date.now() / 1000) - 600 }, 'test-key-1')
  t.equal(
    await refused(t, jwt, await call(jwt, expired), 'Token has expired', INVALID_TOKEN),
    'jwt.expired',
  )
  t.equal(
    await refused(
      t,
      jwt,
      await call(jwt, 'not.a.jwt'),
      'Invalid token: Invalid payload padding',
      INVALID_TOKEN,
    ),
    'jwt.malformed',
  )
  t.equal(
    await refused(
      t,
      securityKey,
      await call(securityKey, `${SECURITY_KEY}x`),
      'Invalid authentication token',
      INVALID_TOKEN,
    ),
    'security_key.mismatch',
  )
  const forbidden = await call(jwt, await rs256({ sub: 'u', exp: inAnHour() }, 'test-key-1'))
  t.equal(forbidden.status, 403, 'a valid token without the scope')
  t.equal(forbidden.headers['www-authenticate'], undefined, 'a 403 carries no challenge')
})

void t.test('no key to try: the kid, its absence and no keys at all are told apart', async (t) => {
  const text = 'Invalid token: No verification keys configured'
  const claims = { sub: 'u', scopes: ['agents:read'], exp: inAnHour() }
  t.equal(
    await refused(
      t,
      jwt,
      await call(jwt, await rs256(claims, 'rotated-away')),
      text,
      INVALID_TOKEN,
    ),
    'jwt.unknown_kid',
  )
  t.equal(
    await refused(t, jwt, await call(jwt, await rs256(claims)), text, INVALID_TOKEN),
    'jwt.no_kid',
  )
  // A key set emptied after start (the gateway refuses to start without keys).
  writeFileSync(`${emptied}/jwks.json`, JSON.stringify({ keys: [] }))
  t.equal((await keyless.gateway.reload()).outcome, 'applied')
  t.equal(
    await refused(
      t,
      keyless,
      await call(keyless, await rs256(claims, 'test-key-1')),
      text,
      INVALID_TOKEN,
    ),
    'jwt.no_keys',
  )
  t.equal(await authOutcome(jwt, 'jwt', 'jwt.unknown_kid'), 1, 'counted by the same reason')
  t.equal(await authOutcome(jwt, 'jwt', 'jwt.no_kid'), 1)
  t.equal(await authOutcome(keyless, 'jwt', 'jwt.no_keys'), 1)
})

void t.test(
  'a refused service-account token: one reason in the log and both metrics',
  async (t) => {
    const malformed = 'svc_pat_not-a-real-token'
    const unknown = mintToken().token
    t.equal(
      await refused(
        t,
        jwt,
        await call(jwt, malformed),
        'Invalid or expired service account token',
        INVALID_TOKEN,
      ),
      'service_account.malformed',
    )
    t.equal(
      await refused(
        t,
        jwt,
        await call(jwt, unknown),
        'Invalid or expired service account token',
        INVALID_TOKEN,
      ),
      'service_account.unknown',
      'a well-formed token of no account',
    )
    const metrics = await jwt.metrics()
    const verifications = (reason: string) =>
      metricValue(metrics, 'portcullis_service_account_verifications_total', { reason }) ?? 0
    const outcomes = (reason: string) =>
      metricValue(metrics, 'portcullis_auth_outcomes_total', {
        credential: 'service_account',
        outcome: 'denied',
        reason,
      }) ?? 0
    for (const reason of ['service_account.malformed', 'service_account.unknown'])
      t.equal(verifications(reason), outcomes(reason), `${reason}: the same count in both metrics`)
    t.equal(
      verifications('service_account.malformed') + verifications('service_account.unknown'),
      2,
    )
    t.notMatch(metrics, /outcome="invalid"/, 'no other word for the same failure')
  },
)
