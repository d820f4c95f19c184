import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  createLocalJWKSet,
  decodeProtectedHeader,
  exportJWK,
  generateKeyPair,
  jwtVerify,
  type JSONWebKeySet,
} from 'jose'
import t from 'tap'
import { AssertionSigner, type AssertionSettings } from '../../../src/identity/assertion-signer.js'
import { IdentityEnforcer } from '../../../src/identity/identity-enforcer.js'
import { ANONYMOUS, jwtUser, planInput, serviceAccount, testConfig } from './helpers.js'

const START = Date.UTC(2030, 0, 1)
const HOUR = 3_600_000

function clock() {
  const state = { ms: START }
  return { state, now: () => state.ms }
}

const settings = (overrides: Partial<AssertionSettings> = {}): AssertionSettings => ({
  algorithm: 'ES256',
  issuer: 'portcullis',
  audience: 'http://127.0.0.1:7777',
  lifetimeSeconds: 60,
  rotationHours: 24,
  signingKeysFile: null,
  ...overrides,
})

const verify = (token: string, jwks: JSONWebKeySet, at: number) =>
  jwtVerify(token, createLocalJWKSet(jwks), {
    issuer: 'portcullis',
    audience: 'http://127.0.0.1:7777',
    currentDate: new Date(at),
  })

void t.test(
  'IDENT-3: the assertion verifies with the published JWKS and carries the identity',
  async (t) => {
    for (const algorithm of ['ES256', 'EdDSA', 'RS256'] as const) {
      const time = clock()
      const signer = await AssertionSigner.create(settings({ algorithm }), { now: time.now })
      const principal = serviceAccount('bot', ['agents:run', 'sessions:read'])
      const token = await signer.assertionFor(principal)
      const { payload, protectedHeader } = await verify(token, signer.jwks(), time.state.ms)
      t.equal(protectedHeader.alg, algorithm)
      t.same(
        payload,
        {
          kind: 'service_account',
          scopes: ['agents:run', 'sessions:read'],
          service_account: 'bot',
          iss: 'portcullis',
          aud: 'http://127.0.0.1:7777',
          sub: 'sa:bot',
          iat: START / 1000,
          exp: START / 1000 + 60,
        },
        algorithm,
      )
      for (const key of signer.jwks().keys)
        t.equal(key.d, undefined, 'no private material is published')
    }
    const time = clock()
    const signer = await AssertionSigner.create(settings(), { now: time.now })
    const token = await signer.assertionFor(
      jwtUser('alice', [], { sessionId: 's1', expiresAt: START / 1000 + 10 }),
    )
    const { payload } = await verify(token, signer.jwks(), time.state.ms)
    t.equal(payload.session_id, 's1')
    t.equal(payload.exp, START / 1000 + 10, 'never outlives the credential')
  },
)

void t.test('IDENT-3: expiry', async (t) => {
  const time = clock()
  const signer = await AssertionSigner.create(settings({ lifetimeSeconds: 30 }), { now: time.now })
  const token = await signer.assertionFor(jwtUser('alice'))
  await t.resolves(verify(token, signer.jwks(), START + 29_000))
  await t.rejects(verify(token, signer.jwks(), START + 31_000), { code: 'ERR_JWT_EXPIRED' })
})

void t.test('IDENT-3: cached per principal while more than half its life remains', async (t) => {
  const time = clock()
  const signer = await AssertionSigner.create(settings(), { now: time.now })
  const alice = jwtUser('alice', [], { credentialHash: 'h-alice' })
  const first = await signer.assertionFor(alice)
  time.state.ms += 29_000
  t.equal(await signer.assertionFor({ ...alice }), first, 'reused (same credential hash)')
  t.not(await signer.assertionFor(jwtUser('bob')), first, 'another principal gets its own')
  time.state.ms += 2_000
  const renewed = await signer.assertionFor(alice)
  t.not(renewed, first, 'renewed once half of the lifetime is gone')
  t.equal(await signer.assertionFor(alice), renewed)
})

void t.test(
  'IDENT-3: rotation publishes the next key first and keeps the previous one',
  async (t) => {
    const time = clock()
    const signer = await AssertionSigner.create(settings(), { now: time.now })
    const kids = () => signer.jwks().keys.map((key) => key.kid)
    const [current, next] = kids()
    t.equal(kids().length, 2, 'the signing key and its successor')
    const before = await signer.assertionFor(jwtUser('alice'))
    t.equal(decodeProtectedHeader(before).kid, current)

    time.state.ms += 24 * HOUR
    const after = await signer.assertionFor(jwtUser('alice'))
    t.equal(
      decodeProtectedHeader(after).kid,
      next,
      'the successor, published a whole period before, signs',
    )
    await signer.settled()
    const published = kids()
    t.equal(published.length, 3)
    t.ok(published.includes(current), 'the previous key stays published')
    await t.resolves(
      verify(before, signer.jwks(), START + 30_000),
      'the previous key still verifies',
    )
    await t.resolves(verify(after, signer.jwks(), time.state.ms))

    time.state.ms += 2 * 60_000 + 1
    t.notOk(kids().includes(current), 'dropped once its last assertion has expired')
    t.equal(kids().length, 2)
  },
)

void t.test(
  'IDENT-3: a shared signing keys file: the first key signs, all are published',
  async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'portcullis-keys-'))
    t.teardown(() => rm(dir, { recursive: true, force: true }))
    const file = join(dir, 'keys.json')
    const privateJwk = async (kid?: string) => {
      const { privateKey } = await generateKeyPair('ES256', { extractable: true })
      return { ...(await exportJWK(privateKey)), ...(kid !== undefined && { kid }) }
    }
    await writeFile(file, JSON.stringify({ keys: [await privateJwk('k1'), await privateJwk()] }))
    const signer = await AssertionSigner.create(settings({ signingKeysFile: file }))
    const token = await signer.assertionFor(jwtUser('alice'))
    t.equal(decodeProtectedHeader(token).kid, 'k1')
    t.equal(signer.jwks().keys.length, 2)
    await t.resolves(verify(token, signer.jwks(), Date.now()))

    await writeFile(file, JSON.stringify({ keys: [await privateJwk('k1')] }))
    await t.rejects(AssertionSigner.create(settings({ signingKeysFile: file, algorithm: 'RS256' })))
    const { publicKey } = await generateKeyPair('ES256')
    await writeFile(file, JSON.stringify({ keys: [await exportJWK(publicKey)] }))
    await t.rejects(
      AssertionSigner.create(settings({ signingKeysFile: file })),
      /not a private key/,
    )
  },
)

void t.test(
  'IDENT-3: the enforcer injects the assertion for authenticated callers only',
  async (t) => {
    const config = testConfig({
      identity: { assertion: { enabled: true, header: 'X-Identity-Proof' } },
    })
    const gateway = await IdentityEnforcer.create(config, 'jwt')
    t.ok(gateway.identityHeaderNames.has('x-identity-proof'), 'client copies are stripped')
    const plan = await gateway.plan(planInput({ principal: jwtUser('alice') }))
    const header = plan.headers.inject?.find(([name]) => name === 'X-Identity-Proof')
    const jwks = gateway.signer?.jwks() ?? { keys: [] }
    const { payload } = await jwtVerify(header?.[1] ?? '', createLocalJWKSet(jwks), {
      issuer: 'portcullis',
      audience: 'http://127.0.0.1:7777',
    })
    t.equal(payload.sub, 'alice')
    const anonymous = await gateway.plan(planInput({ principal: ANONYMOUS }))
    t.same(anonymous.headers.inject, [])
    t.throws(() => new IdentityEnforcer(config, 'jwt'), /no signer/)
  },
)
