import { generateKeyPairSync } from 'node:crypto'
import t from 'tap'
import { fixtures, keyFile, KEYS_DIR, signJwt } from '../../../helpers/jwt.js'
import { gatewayErrorOf } from '../helpers.js'
import { createVerifier } from './setup.js'

void t.test('each algorithm family verifies with its PEM key', async (t) => {
  const cases = [
    { alg: 'RS256', pem: fixtures.rsaPublicPem(), key: fixtures.rsaPrivate() },
    { alg: 'RS512', pem: fixtures.rsaPublicPem(), key: fixtures.rsaPrivate() },
    { alg: 'PS256', pem: fixtures.rsaPublicPem(), key: fixtures.rsaPrivate() },
    { alg: 'RS256', pem: fixtures.rsaCertificatePem(), key: fixtures.rsaPrivate() },
    { alg: 'ES256', pem: fixtures.ecPublicPem(), key: fixtures.ecPrivate() },
    { alg: 'EdDSA', pem: fixtures.ed25519PublicPem(), key: fixtures.ed25519Private() },
    { alg: 'HS256', pem: fixtures.hmacSecret(), key: fixtures.hmacSecret() },
    // HS512 needs 64 bytes (RFC 7518 §3.2); the fixture secret has 43.
    { alg: 'HS512', pem: fixtures.hmacSecret().repeat(2), key: fixtures.hmacSecret().repeat(2) },
  ]
  for (const { alg, pem, key } of cases) {
    const { principal } = await createVerifier(t, { algorithm: alg, verification_keys: [pem] })
    const token = await signJwt({ sub: alg }, { alg, key })
    t.equal((await principal(token)).userId, alg, alg)
  }
})

void t.test('static keys are tried in order; the last error wins', async (t) => {
  const { principal } = await createVerifier(t, {
    algorithm: 'RS256',
    verification_keys: [fixtures.rsa2PublicPem(), fixtures.rsaPublicPem()],
  })
  const token = await signJwt({ sub: 'a' }, { alg: 'RS256', key: fixtures.rsaPrivate() })
  t.equal((await principal(token)).userId, 'a', 'the second key verifies')
  const stranger = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey
  const error = await gatewayErrorOf(async () =>
    principal(await signJwt({ sub: 'a' }, { alg: 'RS256', key: stranger })),
  )
  t.equal(error.detail, 'Invalid token: Signature verification failed')
})

void t.test('an expiry on any key stops at once', async (t) => {
  const { principal, clock } = await createVerifier(t, {
    algorithm: 'RS256',
    verification_keys: [fixtures.rsaPublicPem(), fixtures.rsa2PublicPem()],
  })
  const token = await signJwt(
    { sub: 'a', exp: clock.seconds - 3600 },
    { alg: 'RS256', key: fixtures.rsaPrivate() },
  )
  t.equal((await gatewayErrorOf(() => principal(token))).detail, 'Token has expired')
})

void t.test(
  'startup refuses keys that do not fit the algorithm, naming the index only',
  async (t) => {
    const rsaPem = fixtures.rsaPublicPem()
    const cases: [Record<string, unknown>, RegExp][] = [
      [
        { algorithm: 'HS256', verification_keys: ['ok-secret-0123456789abcdef0123456789', rsaPem] },
        /verification_keys\[1\]: looks like a PEM or SSH key/,
      ],
      [
        { algorithm: 'HS256', verification_keys: [`  \n${rsaPem}`] },
        /verification_keys\[0\]: looks like a PEM/,
      ],
      [
        { algorithm: 'HS256', verification_keys: ['ssh-rsa AAAAB3NzaC1yc2E test'] },
        /looks like a PEM or SSH key/,
      ],
      [
        { algorithm: 'RS256', verification_keys: ['a-shared-secret'] },
        /verification_keys\[0\]: not a PEM public key or certificate/,
      ],
      [
        { algorithm: 'RS256', verification_keys: [fixtures.ecPublicPem()] },
        /RS256 needs an RSA key, got ec/,
      ],
      [{ algorithm: 'ES256', verification_keys: [rsaPem] }, /ES256 needs an EC key on prime256v1/],
      [
        { algorithm: 'ES384', verification_keys: [fixtures.ecPublicPem()] },
        /ES384 needs an EC key on secp384r1, got ec prime256v1/,
      ],
      [
        { algorithm: 'EdDSA', verification_keys: [fixtures.ecPublicPem()] },
        /EdDSA needs an Ed25519 key/,
      ],
      [
        { algorithm: 'PS256', verification_keys: [fixtures.ed25519PublicPem()] },
        /PS256 needs an RSA key/,
      ],
      [
        { algorithm: 'HS256', verification_keys: ['a-short-secret'] },
        /^auth\.verification_keys\[0\]: too short for HS256 \(14 bytes\); RFC 7518 §3\.2 requires at least 32 bytes, make one with: openssl rand -base64 32$/,
      ],
      [
        { algorithm: 'HS384', verification_keys: [fixtures.hmacSecret()] },
        /too short for HS384 \(43 bytes\); RFC 7518 §3\.2 requires at least 48 bytes, make one with: openssl rand -base64 48$/,
      ],
      [
        { algorithm: 'RS256', verification_keys: [`${KEYS_DIR}rsa-public.pem`] },
        /^auth\.verification_keys\[0\]: is a file's path, not a key: give the key itself \(JWT_VERIFICATION_KEY="\$\(cat PATH\)"\) or \{from_file: PATH\}$/,
      ],
      [
        { algorithm: 'RS256', verification_keys: ['./keys/not-there.pem'] },
        /is a file's path, not a key/,
      ],
      [
        { algorithm: 'HS256', verification_keys: [`${KEYS_DIR}hmac-secret.txt`] },
        /is a file's path, not a key/,
      ],
      [{ algorithm: 'RS256' }, /no JWT verification key is usable/],
      [{ algorithm: 'RS256', verification_keys: [] }, /no JWT verification key is usable/],
      [
        { algorithm: 'HS256', verification_keys: [fixtures.hmacSecret()], verify_audience: true },
        /verify_audience: needs auth.audience or auth.service_id/,
      ],
    ]
    for (const [index, [input, message]] of cases.entries()) {
      const error = await createVerifier(t, input).then(
        () => new Error('no error'),
        (caught: unknown) => (caught instanceof Error ? caught : new Error(String(caught))),
      )
      t.match(error.message, message, `case ${index}: ${String(input.algorithm)}`)
      t.notMatch(error.message, /BEGIN|MII|AAAAB3/, 'the key itself is never in the message')
    }
    const weak = generateKeyPairSync('rsa', {
      modulusLength: 1024,
      publicKeyEncoding: { type: 'spki', format: 'pem' },
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    })
    await t.rejects(
      createVerifier(t, { algorithm: 'RS256', verification_keys: [weak.publicKey] }),
      {
        message: /at least 2048 bits/,
      },
    )
  },
)

void t.test('a private key PEM is accepted for its public part, with a warning', async (t) => {
  const { principal, logs } = await createVerifier(t, {
    algorithm: 'RS256',
    verification_keys: [keyFile('rsa-private.pem')],
  })
  t.match(logs.text, 'only its public part is used')
  t.notMatch(logs.text, /BEGIN/)
  t.ok(await principal(await signJwt({ sub: 'a' }, { alg: 'RS256', key: fixtures.rsaPrivate() })))
})
