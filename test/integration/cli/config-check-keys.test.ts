/**
 * `portcullis config check` runs what `serve` runs short of opening the store and binding ports,
 * from the same code: on each configuration below, which passes the schema and the rules but whose
 * keys cannot work, both exit 2 with the same one line (serve before it opens the store).
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { checkAndServeRefuse, tempDir } from '../../helpers/check-and-serve.js'
import { fixtures, KEYS_DIR, publicJwk } from '../../helpers/jwt.js'

const CANNOT = 'portcullis: the configuration cannot be applied: '

void t.test('keys that cannot verify: check and serve refuse with one line', async (t) => {
  const dir = tempDir(t)
  const rsaJwks = join(dir, 'rsa-jwks.json')
  writeFileSync(
    rsaJwks,
    JSON.stringify({ keys: [publicJwk(fixtures.rsaPublicPem(), { kid: 'r' })] }),
  )
  const hs256 = join(dir, 'hs256.yaml')
  writeFileSync(hs256, 'auth: {algorithm: HS256}\n')
  const es256 = join(dir, 'es256.yaml')
  writeFileSync(es256, `auth: {algorithm: ES256, jwks_file: ${rsaJwks}}\n`)
  await checkAndServeRefuse(t, join(dir, 'db'), [
    {
      what: 'an EC key in JWT_VERIFICATION_KEY with the shipped algorithm RS256',
      config: 'config/portcullis.yaml',
      env: { JWT_VERIFICATION_KEY: readFileSync(`${KEYS_DIR}ec-p256-public.pem`, 'utf8') },
      line: `${CANNOT}auth.verification_keys[0]: RS256 needs an RSA key, got ec`,
    },
    {
      what: "a key file's path given as the key",
      config: 'config/portcullis.yaml',
      env: { JWT_VERIFICATION_KEY: `${KEYS_DIR}rsa-public.pem` },
      line: `${CANNOT}auth.verification_keys[0]: is a file's path, not a key: give the key itself (JWT_VERIFICATION_KEY="$(cat PATH)") or {from_file: PATH}`,
    },
    {
      what: 'an HS256 secret shorter than 32 bytes',
      config: hs256,
      env: { JWT_VERIFICATION_KEY: 'sixteen-bytes-xx' },
      line: `${CANNOT}auth.verification_keys[0]: too short for HS256 (16 bytes); RFC 7518 §3.2 requires at least 32 bytes, make one with: openssl rand -base64 32`,
    },
    {
      what: 'a JWKS file holding only keys of another algorithm',
      config: es256,
      env: {},
      line: `${CANNOT}auth.jwks_file: ${rsaJwks} holds no key usable with auth.algorithm ES256 (entries of another key type, curve or "alg" are skipped), and no other verification key is configured`,
    },
  ])
})
