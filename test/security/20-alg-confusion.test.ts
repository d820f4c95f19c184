/**
 * Attack class 20 — algorithm and key confusion: an RS/ES public key used as an HMAC secret
 * (node-jsonwebtoken CVE-2022-23541, fast-jwt CVE-2023-48223 and its whitespace-prefixed PEM
 * follow-up GHSA-mvf2-f6gm-w987, PyJWT CVE-2022-29217), and JWK `kty`/`alg` mismatches. The
 * configured algorithm is the only one accepted, a PEM key is refused at startup for an HS
 * algorithm, and JWKS entries that do not fit the algorithm are never used.
 */
import { writeFile } from 'node:fs/promises'
import t from 'tap'
import { base64url, fixtures, publicJwk, signJwt, signRawHs } from '../helpers/jwt.js'
import { startRuntime } from '../helpers/runtime.js'
import { bearer, refused, securedGateway, send, upgrade } from './harness.js'

const runtime = await startRuntime(t)
const pem = fixtures.rsaPublicPem()
const claims = () => ({
  sub: 'mallory',
  scopes: ['os:admin'],
  exp: Math.floor(Date.now() / 1000) + 600,
})
const dir = t.testdir({})
await writeFile(
  `${dir}/jwks.json`,
  JSON.stringify({
    keys: [
      publicJwk(pem, { kid: 'rsa', alg: 'RS256' }),
      // An HMAC key whose bytes are the RSA public key, and keys of other types: none may verify RS256.
      { kty: 'oct', kid: 'oct', k: base64url(pem), alg: 'HS256' },
      { kty: 'oct', kid: 'oct-as-rs', k: base64url(pem), alg: 'RS256' },
      publicJwk(fixtures.ecPublicPem(), { kid: 'ec' }),
    ],
  }),
)
const staticRsa = await securedGateway(t, runtime, {
  auth: { algorithm: 'RS256', verification_keys: [pem] },
})
const jwksRsa = await securedGateway(t, runtime, {
  auth: {
    algorithm: 'RS256',
    verification_keys: null,
    jwks_file: `${dir}/jwks.json`,
    jwks_watch: false,
  },
})

const secrets: [string, string | Buffer][] = [
  ['the PEM', pem],
  ['the PEM trimmed', pem.trim()],
  ['the PEM, whitespace first', ` \n${pem}`],
  ['the PEM with CRLF', pem.replaceAll('\n', '\r\n')],
  ['the DER bytes', Buffer.from(pem.replace(/-----[^-]+-----|\s/g, ''), 'base64')],
  ['the JWK text', JSON.stringify(publicJwk(pem))],
  ['the modulus', Buffer.from(publicJwk(pem).n as string, 'base64url')],
]

void t.test('HS256 signed with the public key, against RS256 gateways', async (t) => {
  for (const [what, secret] of secrets) {
    for (const kid of [undefined, 'rsa', 'oct', 'oct-as-rs']) {
      const token = await signJwt(claims(), {
        alg: 'HS256',
        key: secret,
        ...(kid === undefined ? {} : { kid }),
      })
      for (const gateway of [staticRsa, jwksRsa]) {
        refused(
          t,
          await send(gateway, runtime, 'GET', '/agents/a1', [bearer(token)]),
          401,
          'Invalid token: The specified alg value is not allowed',
          `${what}, kid ${kid}`,
        )
      }
    }
    // The header claims the configured alg while the signature is an HMAC with the public key.
    const relabelled = signRawHs(
      JSON.stringify({ alg: 'RS256', kid: 'oct-as-rs' }),
      JSON.stringify(claims()),
      secret,
    )
    for (const gateway of [staticRsa, jwksRsa]) {
      refused(
        t,
        await send(gateway, runtime, 'GET', '/agents/a1', [bearer(relabelled)]),
        401,
        undefined,
        `${what} relabelled RS256`,
      )
      refused(
        t,
        await upgrade(gateway, runtime, '/ws/echo', [bearer(relabelled)]),
        401,
        undefined,
        `${what} relabelled, upgrade`,
      )
    }
  }
})

void t.test('other asymmetric algorithms and keys never pass for RS256', async (t) => {
  const forged: [string, string][] = [
    [
      'ES256 with the EC key',
      await signJwt(claims(), { alg: 'ES256', key: fixtures.ecPrivate(), kid: 'ec' }),
    ],
    ['EdDSA', await signJwt(claims(), { alg: 'EdDSA', key: fixtures.ed25519Private() })],
    [
      'PS256 with the right key',
      await signJwt(claims(), { alg: 'PS256', key: fixtures.rsaPrivate() }),
    ],
    [
      'RS384 with the right key',
      await signJwt(claims(), { alg: 'RS384', key: fixtures.rsaPrivate() }),
    ],
    [
      'RS256 with another key',
      await signJwt(claims(), { alg: 'RS256', key: fixtures.rsa2Private(), kid: 'rsa' }),
    ],
    [
      'RS256 naming the EC key',
      await signJwt(claims(), { alg: 'RS256', key: fixtures.rsa2Private(), kid: 'ec' }),
    ],
  ]
  for (const [what, token] of forged) {
    for (const gateway of [staticRsa, jwksRsa]) {
      refused(
        t,
        await send(gateway, runtime, 'GET', '/agents/a1', [bearer(token)]),
        401,
        undefined,
        what,
      )
    }
  }
  const honest = await signJwt(
    { ...claims(), scopes: ['agents:read'] },
    { alg: 'RS256', key: fixtures.rsaPrivate(), kid: 'rsa' },
  )
  t.equal(
    (await send(jwksRsa, runtime, 'GET', '/agents/a1', [bearer(honest)])).status,
    200,
    'the real key works',
  )
})

void t.test(
  'an HS algorithm configured with a PEM key: the gateway refuses to start',
  async (t) => {
    for (const key of [pem, fixtures.rsaCertificatePem(), ` ${pem}`]) {
      await t.rejects(
        securedGateway(t, runtime, { auth: { algorithm: 'HS256', verification_keys: [key] } }),
      )
    }
  },
)
