import t from 'tap'
import { decodeHeader } from '../../../../src/auth/jwt/compact-token.js'
import { deepFreeze } from '../../../../src/deep-freeze.js'
import { scopesFromClaim } from '../../../../src/auth/jwt/jwt-claims.js'
import { NOT_RESPONSIBLE } from '../../../../src/auth/verifier.js'
import { GatewayError } from '../../../../src/errors.js'
import { base64url, fixtures, publicJwk, signJwt } from '../../../helpers/jwt.js'
import { thrownBy } from '../../../helpers/thrown.js'
import { bearer } from '../helpers.js'
import { createVerifier, hs, J, legit, RS } from './setup.js'

/** What a token never seen before costs: decoded once, checked at once when nothing is fetched. */

void t.test('static keys and node:crypto: a fresh token is answered at once', async (t) => {
  const { verifier, clock } = await createVerifier(t, {
    ...RS,
    verification_keys: [fixtures.rsa2PublicPem(), fixtures.rsaPublicPem()],
  })
  const token = await legit({ sub: 'alice', scopes: ['agents:read'] })
  const answer = verifier.verify(bearer(token))
  t.notOk(answer instanceof Promise, 'no promise: the second static key verified it at once')
  t.not(answer, NOT_RESPONSIBLE)
  t.equal((answer as { userId: string }).userId, 'alice')

  const forged = await signJwt({ sub: 'mallory' }, { alg: 'RS256', key: fixtures.rsaPrivate() })
  const tampered = `${forged.slice(0, forged.lastIndexOf('.') + 1)}${'A'.repeat(342)}`
  const refusal = thrownBy(() => verifier.verify(bearer(tampered)))
  t.ok(refusal instanceof GatewayError, 'a bad signature is refused at once, thrown')
  t.equal((refusal as GatewayError).reason, 'jwt.signature')
  t.equal((refusal as GatewayError).detail, 'Invalid token: Signature verification failed')

  const expired = await legit({ sub: 'alice', exp: clock.seconds - 60 })
  const expiry = thrownBy(() => verifier.verify(bearer(expired)))
  t.equal((expiry as GatewayError).code, 'TOKEN_EXPIRED', 'an expiry stops at once')
})

void t.test("a header node:crypto leaves to jose still gets jose's answer", async (t) => {
  const { verifier, principal } = await createVerifier(t, J)
  const token = await signJwt(
    { sub: 'alice' },
    { alg: 'HS256', key: fixtures.hmacSecret(), header: { crit: ['b64'], b64: true } },
  )
  const answer = verifier.verify(bearer(token))
  t.ok(answer instanceof Promise, 'jose answers with a promise')
  t.equal(((await answer) as { userId: string }).userId, 'alice', "jose's outcome")
  t.equal((await principal(await hs({ sub: 'bob' }))).userId, 'bob')
})

void t.test('a JWKS key set is waited for', async (t) => {
  const dir = t.testdir({
    'jwks.json': JSON.stringify({ keys: [publicJwk(fixtures.rsaPublicPem(), { kid: 'k' })] }),
  })
  const { verifier } = await createVerifier(t, {
    algorithm: 'RS256',
    jwks_file: `${dir}/jwks.json`,
    jwks_watch: false,
  })
  const token = await legit({ sub: 'alice' }, { kid: 'k' })
  const answer = verifier.verify(bearer(token))
  t.ok(answer instanceof Promise)
  t.equal(((await answer) as { userId: string }).userId, 'alice')
})

void t.test('a header segment is decoded once, frozen all through', async (t) => {
  const segment = base64url(JSON.stringify({ alg: 'RS256', kid: 'k', jwk: { kty: 'RSA' } }))
  const first = decodeHeader(segment)
  t.same(first, { alg: 'RS256', kid: 'k', jwk: { kty: 'RSA' } })
  t.equal(decodeHeader(`${segment}`), first, 'the same object for the same text')
  t.ok(Object.isFrozen(first) && Object.isFrozen(first?.jwk), 'deep-frozen: it is shared')
  const other = decodeHeader(base64url(JSON.stringify({ alg: 'RS256', kid: 'j' })))
  t.equal(other?.kid, 'j', 'another text is another header')
  for (const bad of [base64url('[1]'), base64url('not json'), base64url('null')]) {
    t.equal(decodeHeader(bad), undefined, bad)
    t.equal(decodeHeader(bad), undefined, `${bad}, again (remembered as no header)`)
  }
})

void t.test('padding is accepted only where PyJWT would add it', async (t) => {
  const { principal } = await createVerifier(t, J)
  const token = await hs({ sub: 'alice' })
  const [header, payload, signature] = token.split('.') as [string, string, string]
  t.equal(header.length % 4, 0, '{"alg":"HS256"} needs no padding')
  const padded = (segment: string) => segment + '='.repeat((4 - (segment.length % 4)) % 4)
  const refused = async (candidate: string) => {
    try {
      await principal(candidate)
    } catch (error) {
      return (error as GatewayError).detail
    }
    return 'accepted'
  }
  t.equal((await principal(`${padded(header)}.${payload}.${signature}`)).userId, 'alice')
  t.equal(
    await refused(`${header}=.${payload}.${signature}`),
    'Invalid token: Invalid header padding',
    'a `=` where none is missing',
  )
  t.equal(
    await refused(`${header}.${payload.slice(0, 4)}=${payload.slice(4)}.${signature}`),
    'Invalid token: Invalid payload padding',
    'padding inside the segment',
  )
  t.equal(
    await refused(`${header}.${payload}.${signature.slice(0, 4)}=${signature.slice(4)}`),
    'Invalid token: Invalid crypto padding',
  )
})

void t.test(
  'scopes: a list of strings is used as it stands, anything else is copied',
  async (t) => {
    const frozen = Object.freeze(['agents:read', 'teams:run'])
    t.equal(scopesFromClaim(frozen), frozen, 'a frozen list of strings: no copy')
    const open = ['agents:read']
    const read = scopesFromClaim(open)
    t.not(read, open, 'a list that is not frozen is copied')
    t.ok(Object.isFrozen(read))
    t.notOk(Object.isFrozen(open), 'the claim given is left as it was')
    t.same(scopesFromClaim(['a', 1, 'b']), ['a', 'b'])
    t.ok(Object.isFrozen(scopesFromClaim('one')) && Object.isFrozen(scopesFromClaim(7)))
  },
)

void t.test('deepFreeze freezes every level, however deep', async (t) => {
  let deep: Record<string, unknown> = { leaf: [1, { x: 'y' }] }
  const root = deep
  for (let level = 0; level < 50_000; level++) deep = deep.next = { level } as never
  t.equal(deepFreeze(root), root)
  t.ok(Object.isFrozen(root) && Object.isFrozen(root.leaf) && Object.isFrozen(deep))
  t.ok(Object.isFrozen((root.leaf as unknown[])[1]))
  t.equal(deepFreeze('text'), 'text')
  t.equal(deepFreeze(null), null)
})
