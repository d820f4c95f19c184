import { generateKeyPairSync } from 'node:crypto'
import t from 'tap'
import { fixtures, publicJwk, signJwt, signRawHs } from '../../../helpers/jwt.js'
import { gatewayErrorOf } from '../helpers.js'
import { createVerifier, J, K, legit, RS } from './setup.js'

/** Attack class 21: header-driven key selection (jwk, jku, x5u, x5c, kid, crit). */

void t.test(
  '21: embedded jwk / jku / x5u / x5c header keys are never used, nothing is fetched',
  async (t) => {
    const realFetch = globalThis.fetch
    let fetched = 0
    globalThis.fetch = async () => {
      fetched += 1
      throw new Error('no network in this test')
    }
    t.teardown(() => {
      globalThis.fetch = realFetch
    })
    const { principal } = await createVerifier(t, {
      ...RS,
      jwks_file: fixtures.jwksPath,
      jwks_watch: false,
    })
    const attacker = generateKeyPairSync('rsa', { modulusLength: 2048 })
    const attackerJwk = publicJwk(attacker.publicKey)
    const headers = [
      { jwk: attackerJwk },
      { jwk: attackerJwk, kid: 'test-key-1' },
      { jku: 'https://evil.example/jwks.json' },
      { jku: 'https://evil.example/jwks.json', kid: 'evil' },
      { x5u: 'https://evil.example/cert.pem' },
      { x5c: ['MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA'] },
    ]
    for (const header of headers) {
      const forged = await signJwt(
        { sub: 'admin', scopes: ['os:admin'] },
        { alg: 'RS256', key: attacker.privateKey, header },
      )
      const error = await gatewayErrorOf(() => principal(forged))
      t.equal(error.status, 401, Object.keys(header).join('+'))
      t.equal(error.reason, 'jwt.signature')
    }
    const ignored = await legit(
      { sub: 'alice' },
      { jku: 'https://evil.example/jwks.json', x5u: 'https://evil.example/c' },
    )
    t.equal(
      (await principal(ignored)).userId,
      'alice',
      'the headers neither help nor hurt a genuine token',
    )
    t.equal(fetched, 0)
  },
)

void t.test(
  '21: kid is only an exact map key (path traversal, SQL, prototype names)',
  async (t) => {
    const jwks = { keys: [publicJwk(fixtures.rsaPublicPem(), { kid: 'test-key-1' })] }
    const dir = t.testdir({ 'jwks.json': JSON.stringify(jwks) })
    let reads = 0
    const { principal } = await createVerifier(
      t,
      { algorithm: 'RS256', jwks_file: `${dir}/jwks.json`, jwks_watch: false },
      {
        readFile: async (path) => {
          reads += 1
          const { readFile } = await import('node:fs/promises')
          return readFile(path, 'utf8')
        },
      },
    )
    const kids = [
      '../../../../etc/passwd',
      '/dev/null',
      "' OR '1'='1",
      '__proto__',
      'constructor',
      'toString',
      'test-key-1 ',
      'TEST-KEY-1',
      'test-key-1\u0000',
    ]
    for (const kid of kids) {
      const error = await gatewayErrorOf(async () => principal(await legit({ sub: 'a' }, { kid })))
      t.equal(error.detail, 'Invalid token: No verification keys configured', JSON.stringify(kid))
    }
    t.equal(reads, 2, 'the startup read and at most one re-read within the cooldown')
    t.ok(await principal(await legit({ sub: 'a' }, { kid: 'test-key-1' })))
  },
)

void t.test('21: crit headers and unencoded payloads are refused', async (t) => {
  const { principal } = await createVerifier(t, J)
  const crit = signRawHs('{"alg":"HS256","crit":["x-custom"],"x-custom":1}', '{"sub":"a"}', K)
  t.equal((await gatewayErrorOf(() => principal(crit))).reason, 'jwt.malformed')
  const b64 = signRawHs('{"alg":"HS256","b64":false,"crit":["b64"]}', '{"sub":"a"}', K)
  t.equal((await gatewayErrorOf(() => principal(b64))).status, 401)
})
