import { writeFile } from 'node:fs/promises'
import t from 'tap'
import { compactVerify } from 'jose'
import type { VerifyJws } from '../../../../src/auth/jwt/key-order.js'
import { fixtures, publicJwk, signJwt } from '../../../helpers/jwt.js'
import { gatewayErrorOf } from '../helpers.js'
import { createVerifier, hs, J } from './setup.js'

/** Attack class 17: the verified-token cache must never change an outcome. */

function countingVerify(): { verifyJws: VerifyJws; calls: () => number } {
  let calls = 0
  return {
    verifyJws: (token, key, options) => {
      calls += 1
      return compactVerify(token, key, options)
    },
    calls: () => calls,
  }
}

void t.test('a hit skips verification', async (t) => {
  const spy = countingVerify()
  const { principal, metrics } = await createVerifier(t, J, { verifyJws: spy.verifyJws })
  const token = await hs({ sub: 'alice', scopes: ['agents:read'] })
  const first = await principal(token)
  const second = await principal(token)
  t.equal(spy.calls(), 1)
  t.equal(second, first, 'the same frozen principal')
  const rendered = await metrics.render()
  t.match(rendered, /portcullis_jwt_cache_lookups_total\{result="miss"\} 1/)
  t.match(rendered, /portcullis_jwt_cache_lookups_total\{result="hit"\} 1/)
  await principal(await hs({ sub: 'bob' }))
  t.equal(spy.calls(), 2, 'another token is verified')
})

void t.test('expiry is honoured while cached', async (t) => {
  const spy = countingVerify()
  const { principal, clock } = await createVerifier(t, J, { verifyJws: spy.verifyJws })
  const exp = clock.seconds + 60
  const token = await hs({ sub: 'alice', exp })
  await principal(token)
  clock.advance(30_000)
  await principal(token)
  t.equal(spy.calls(), 1, 'cached before exp')
  clock.ms = exp * 1000 + 5_000
  t.equal(
    (await principal(token)).userId,
    'alice',
    'past exp but within the leeway: verified again, accepted',
  )
  t.equal(spy.calls(), 2, 'the entry died at exp')
  clock.ms = exp * 1000 + 11_000
  const error = await gatewayErrorOf(() => principal(token))
  t.equal(error.detail, 'Token has expired')
})

void t.test('failures are never cached', async (t) => {
  const spy = countingVerify()
  const { principal } = await createVerifier(t, J, { verifyJws: spy.verifyJws })
  const forged = await signJwt({ sub: 'a' }, { alg: 'HS256', key: 'wrong' })
  await gatewayErrorOf(() => principal(forged))
  await gatewayErrorOf(() => principal(forged))
  t.equal(spy.calls(), 2)
  const reserved = await hs({ sub: 'sa:x' })
  await gatewayErrorOf(() => principal(reserved))
  await gatewayErrorOf(() => principal(reserved))
  t.equal(spy.calls(), 4, 'a verified signature with a refused subject is not a success')
})

void t.test('a key-set change empties the cache', async (t) => {
  const jwkA = publicJwk(fixtures.rsaPublicPem(), { kid: 'a' })
  const jwks = JSON.stringify({ keys: [jwkA] })
  const dir = t.testdir({ 'jwks.json': jwks })
  const path = `${dir}/jwks.json`
  const spy = countingVerify()
  const { verifier, principal } = await createVerifier(
    t,
    { algorithm: 'RS256', jwks_file: path, jwks_watch: false },
    { verifyJws: spy.verifyJws },
  )
  const token = await signJwt(
    { sub: 'alice' },
    { alg: 'RS256', key: fixtures.rsaPrivate(), kid: 'a' },
  )
  await principal(token)
  await principal(token)
  t.equal(spy.calls(), 1)
  await verifier.reload()
  await principal(token)
  t.equal(spy.calls(), 1, 'an unchanged file keeps the cache')
  const both = { keys: [jwkA, publicJwk(fixtures.rsa2PublicPem(), { kid: 'b' })] }
  await writeFile(path, JSON.stringify(both))
  t.equal(await verifier.reload(), 'updated')
  await principal(token)
  t.equal(spy.calls(), 2, 'verified again under the new key set')
  await writeFile(
    path,
    JSON.stringify({ keys: [publicJwk(fixtures.rsa2PublicPem(), { kid: 'b' })] }),
  )
  await verifier.reload()
  t.equal(
    (await gatewayErrorOf(() => principal(token))).status,
    401,
    'a removed key is not served from the cache',
  )
})

void t.test('jwt_cache_max_entries: 0 disables the cache; the bound holds', async (t) => {
  const spy = countingVerify()
  const off = await createVerifier(
    t,
    { ...J, jwt_cache_max_entries: 0 },
    { verifyJws: spy.verifyJws },
  )
  const token = await hs({ sub: 'a' })
  await off.principal(token)
  await off.principal(token)
  t.equal(spy.calls(), 2)

  const small = countingVerify()
  const bounded = await createVerifier(
    t,
    { ...J, jwt_cache_max_entries: 2 },
    { verifyJws: small.verifyJws },
  )
  const tokens = await Promise.all(['a', 'b', 'c'].map((sub) => hs({ sub })))
  for (const each of tokens) await bounded.principal(each)
  await bounded.principal(tokens[2] ?? '')
  t.equal(small.calls(), 3, 'the newest entry is kept')
  await bounded.principal(tokens[0] ?? '')
  t.equal(small.calls(), 4, 'the oldest was evicted')
})
