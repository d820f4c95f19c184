/**
 * Forged JWTs through the gateway: alg none, algorithm confusion, key-locating headers (jku, x5u,
 * jwk, kid tricks) and oversized tokens. Every refusal is a 401 the upstream never hears of.
 */
import t, { type Test } from 'tap'
import type { AgentRuntime } from '../../../demo/runtime/index.js'
import { startGateway, type TestGateway } from '../../helpers/gateway.js'
import { fixtures, publicJwk, rawJwt, signJwt, signRawHs } from '../../helpers/jwt.js'
import { httpRequest, type HttpResult } from '../../helpers/raw-http.js'
import { startCustomUpstream, startRuntime } from '../../helpers/runtime.js'

const exp = () => Math.floor(Date.now() / 1000) + 3600
const ADMIN_CLAIMS = () => ({ sub: 'mallory', scopes: ['os:admin'], exp: exp() })

const runtime = await startRuntime(t)
const rsa = await startGateway(t, {
  upstream: { url: runtime.url },
  auth: { algorithm: 'RS256', verification_keys: [fixtures.rsaPublicPem()], authorization: true },
  service_accounts: { enabled: false },
})
// Only `test-key-1` (the first RSA key): no kid-less entry to fall back on.
const jwksDir = t.testdir({
  'jwks.json': JSON.stringify({
    keys: [publicJwk(fixtures.rsaPublicPem(), { kid: 'test-key-1' })],
  }),
})
const jwks = await startGateway(t, {
  upstream: { url: runtime.url },
  auth: { algorithm: 'RS256', jwks_file: `${jwksDir}/jwks.json`, authorization: true },
  service_accounts: { enabled: false },
})

async function send(gateway: TestGateway, headers: Record<string, string>): Promise<HttpResult> {
  runtime.clear()
  return httpRequest(gateway.url, { path: '/agents', headers })
}
const bearer = (token: string) => ({ authorization: `Bearer ${token}` })

function refusedUnheard(
  t: Test,
  reply: HttpResult,
  detail: string,
  upstream: AgentRuntime = runtime,
): void {
  t.equal(reply.status, 401)
  t.same(reply.json(), { detail })
  t.equal(upstream.started, 0, 'the upstream saw nothing')
}

const ALG_REFUSED = 'Invalid token: The specified alg value is not allowed'

void t.test('alg none (any spelling, with or without a signature) → 401', async (t) => {
  for (const alg of ['none', 'None', 'NONE', 'nOnE']) {
    for (const signature of ['', 'AAAA']) {
      const forged = rawJwt({ alg, typ: 'JWT' }, ADMIN_CLAIMS(), signature)
      refusedUnheard(t, await send(rsa, bearer(forged)), ALG_REFUSED)
    }
  }
  const noAlg = rawJwt({ typ: 'JWT' }, ADMIN_CLAIMS(), '')
  refusedUnheard(t, await send(rsa, bearer(noAlg)), ALG_REFUSED)
})

void t.test(
  'alg confusion: HS256 signed with the RSA public key while RS256 is configured → 401',
  async (t) => {
    const pem = fixtures.rsaPublicPem()
    for (const secret of [pem, pem.trim(), Buffer.from(pem)]) {
      const forged = await signJwt(ADMIN_CLAIMS(), { alg: 'HS256', key: secret })
      refusedUnheard(t, await send(rsa, bearer(forged)), ALG_REFUSED)
    }
    // The header claims RS256, the signature is an HMAC with the public key: no key verifies it.
    const relabelled = signRawHs(
      JSON.stringify({ alg: 'RS256' }),
      JSON.stringify(ADMIN_CLAIMS()),
      pem,
    )
    refusedUnheard(
      t,
      await send(rsa, bearer(relabelled)),
      'Invalid token: Signature verification failed',
    )
    const jwk = JSON.stringify(publicJwk(pem))
    const viaJwk = await signJwt(ADMIN_CLAIMS(), { alg: 'HS256', key: jwk })
    refusedUnheard(t, await send(jwks, bearer(viaJwk)), ALG_REFUSED)
  },
)

void t.test('jku, x5u and jwk headers are never followed nor trusted', async (t) => {
  let fetched = 0
  const keyServer = await startCustomUpstream(t, (_req, res) => {
    fetched++
    res.setHeader('content-type', 'application/json')
    res.end(JSON.stringify({ keys: [publicJwk(fixtures.rsa2PublicPem(), { kid: 'attacker' })] }))
  })
  const header = {
    jku: `${keyServer.url}/jwks.json`,
    x5u: `${keyServer.url}/cert.pem`,
    jwk: publicJwk(fixtures.rsa2PublicPem()),
  }
  const attacker = { alg: 'RS256', key: fixtures.rsa2Private(), header } as const
  for (const gateway of [rsa, jwks]) {
    const forged = await signJwt(ADMIN_CLAIMS(), { ...attacker, kid: 'attacker' })
    const reply = await send(gateway, bearer(forged))
    t.equal(reply.status, 401, 'signed by a key the token itself names: refused')
    t.equal(runtime.started, 0)
  }
  t.equal(fetched, 0, 'no key URL was ever fetched')
  const honest = await signJwt(
    { sub: 'alice', scopes: ['agents:read'], exp: exp() },
    { alg: 'RS256', key: fixtures.rsaPrivate(), kid: 'test-key-1', header },
  )
  const reply = await send(jwks, bearer(honest))
  t.equal(reply.status, 200, 'a correctly signed token is judged by its signature alone')
  t.equal(fetched, 0)
})

void t.test('kid is an exact map key: paths, URLs and injections name no key', async (t) => {
  for (const kid of [
    '../../../../etc/passwd',
    'file:///etc/passwd',
    "x' OR '1'='1",
    'test-key-1 ',
  ]) {
    const forged = await signJwt(ADMIN_CLAIMS(), { alg: 'RS256', key: fixtures.rsa2Private(), kid })
    refusedUnheard(
      t,
      await send(jwks, bearer(forged)),
      'Invalid token: No verification keys configured',
    )
  }
})

void t.test('oversized tokens → 401 before any parsing; larger headers → 431', async (t) => {
  const padding = 'x'.repeat(9_000)
  const big = await signJwt(
    { sub: 'alice', scopes: ['agents:read'], exp: exp(), padding },
    { alg: 'RS256', key: fixtures.rsaPrivate() },
  )
  t.ok(big.length > 8192, 'a correctly signed token above auth.max_token_bytes')
  refusedUnheard(t, await send(rsa, bearer(big)), 'Invalid token: Token is too large')
  refusedUnheard(
    t,
    await send(rsa, bearer(`${'a'.repeat(9_000)}.b.c`)),
    'Invalid token: Token is too large',
  )
  const huge = await send(rsa, bearer(`${'a'.repeat(20_000)}.b.c`))
  t.equal(huge.status, 431, 'above server.max_header_bytes')
  t.equal(runtime.started, 0)
})
