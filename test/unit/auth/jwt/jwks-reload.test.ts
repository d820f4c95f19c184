import { randomBytes } from 'node:crypto'
import { mkdir, readFile, rename, rm, symlink, unlink, writeFile } from 'node:fs/promises'
import t from 'tap'
import { fixtures, publicJwk, rawJwt, signJwt } from '../../../helpers/jwt.js'
import { eventually, gatewayErrorOf } from '../helpers.js'
import { createVerifier } from './setup.js'

const JWK_A = publicJwk(fixtures.rsaPublicPem(), { kid: 'a' })
const JWK_B = publicJwk(fixtures.rsa2PublicPem(), { kid: 'b' })
const KEY_A = JSON.stringify({ keys: [JWK_A] })
const KEY_B = JSON.stringify({ keys: [JWK_B] })

const tokenA = () =>
  signJwt({ sub: 'alice' }, { alg: 'RS256', key: fixtures.rsaPrivate(), kid: 'a' })
const tokenB = () =>
  signJwt({ sub: 'bob' }, { alg: 'RS256', key: fixtures.rsa2Private(), kid: 'b' })

/** Writes a temporary file next to `path` and renames it over `path` (an atomic replace). */
async function replaceAtomically(path: string, text: string): Promise<void> {
  const temporary = `${path}.${randomBytes(4).toString('hex')}.tmp`
  await writeFile(temporary, text)
  await rename(temporary, path)
}

async function accepts(
  verify: (token: string) => Promise<unknown>,
  token: string,
): Promise<boolean> {
  try {
    await verify(token)
    return true
  } catch {
    return false
  }
}

void t.test('a changed file is picked up without a restart (watch, atomic rename)', async (t) => {
  const dir = t.testdir({ 'jwks.json': KEY_A })
  const path = `${dir}/jwks.json`
  const { principal, metrics } = await createVerifier(
    t,
    { algorithm: 'RS256', jwks_file: path, jwks_watch: true },
    { jwksDebounceMs: 20 },
  )
  const a = await tokenA()
  const b = await tokenB()
  t.equal((await principal(a)).userId, 'alice')
  t.equal(await accepts(principal, b), false, 'b is not known yet')

  await replaceAtomically(path, KEY_B)
  t.ok(await eventually(() => accepts(principal, b)), 'the new key is accepted')
  const error = await gatewayErrorOf(() => principal(a))
  t.equal(error.status, 401, 'the removed key is refused, although its token was cached')
  t.match(
    await metrics.render(),
    /portcullis_jwks_reloads_total\{result="updated",trigger="watch"\} 1/,
  )
  t.match(await metrics.render(), /portcullis_jwks_keys\{source="file"\} 1/)
})

void t.test('a Kubernetes volume swap (..data symlink renamed) is picked up', async (t) => {
  const dir = t.testdir({ '..2026_01': { 'jwks.json': KEY_A } })
  await symlink('..2026_01', `${dir}/..data`)
  await symlink('..data/jwks.json', `${dir}/jwks.json`)
  const { principal } = await createVerifier(
    t,
    { algorithm: 'RS256', jwks_file: `${dir}/jwks.json`, jwks_watch: true },
    { jwksDebounceMs: 20 },
  )
  const b = await tokenB()
  t.equal(await accepts(principal, b), false)
  await mkdir(`${dir}/..2026_02`)
  await writeFile(`${dir}/..2026_02/jwks.json`, KEY_B)
  await symlink('..2026_02', `${dir}/..data_tmp`)
  await rename(`${dir}/..data_tmp`, `${dir}/..data`)
  await rm(`${dir}/..2026_01`, { recursive: true })
  t.ok(await eventually(() => accepts(principal, b)), 'the new key is accepted')
  t.equal(await accepts(principal, await tokenA()), false, 'the old key is gone')
})

void t.test(
  'reload() (SIGHUP) re-reads the file; unchanged content keeps the key set',
  async (t) => {
    const dir = t.testdir({ 'jwks.json': KEY_A })
    const path = `${dir}/jwks.json`
    const { verifier, principal, metrics } = await createVerifier(t, {
      algorithm: 'RS256',
      jwks_file: path,
      jwks_watch: false,
    })
    t.equal(await verifier.reload(), 'unchanged')
    await writeFile(path, KEY_B)
    t.equal(await verifier.reload(), 'updated')
    t.equal((await principal(await tokenB())).userId, 'bob')
    t.equal(await accepts(principal, await tokenA()), false)
    const rendered = await metrics.render()
    t.match(rendered, /portcullis_jwks_reloads_total\{result="unchanged",trigger="signal"\} 1/)
    t.match(rendered, /portcullis_jwks_reloads_total\{result="updated",trigger="signal"\} 1/)
  },
)

void t.test('a failed reload keeps the old keys (fail closed with the old keys)', async (t) => {
  const dir = t.testdir({ 'jwks.json': KEY_A })
  const path = `${dir}/jwks.json`
  const { verifier, principal, logs, metrics } = await createVerifier(t, {
    algorithm: 'RS256',
    jwks_file: path,
    jwks_watch: false,
  })
  const a = await tokenA()
  for (const broken of ['{"keys": [', '[]', '{"no_keys": true}']) {
    await writeFile(path, broken)
    t.equal(await verifier.reload(), 'failed', broken)
    t.equal((await principal(a)).userId, 'alice', 'still verified with the old keys')
  }
  await unlink(path)
  t.equal(await verifier.reload(), 'failed', 'file missing')
  t.equal((await principal(a)).userId, 'alice')
  t.match(logs.text, 'JWKS reload failed; keeping the previous keys')
  t.match(logs.text, `JWKS file not found: ${path}`)
  t.notMatch(logs.text, /"n":"/, 'no key material in the logs')
  t.match(
    await metrics.render(),
    /portcullis_jwks_reloads_total\{result="failed",trigger="signal"\} 4/,
  )

  await writeFile(path, JSON.stringify({ keys: [] }))
  t.equal(
    await verifier.reload(),
    'updated',
    'a valid file without keys is applied: tokens are refused',
  )
  t.equal(await accepts(principal, a), false)
})

void t.test('an unknown kid re-reads the file at most once per cooldown', async (t) => {
  const dir = t.testdir({ 'jwks.json': KEY_A })
  const path = `${dir}/jwks.json`
  let reads = 0
  const { principal, clock, metrics } = await createVerifier(
    t,
    { algorithm: 'RS256', jwks_file: path, jwks_watch: false, jwks_reload_cooldown_seconds: 30 },
    {
      readFile: async (file) => {
        reads += 1
        return readFile(file, 'utf8')
      },
    },
  )
  t.equal(reads, 1, 'the startup read')
  const randomKidToken = () =>
    rawJwt({ alg: 'RS256', kid: randomBytes(12).toString('hex') }, { sub: 'x' }, 'c2ln')
  const outcomes = await Promise.allSettled(
    Array.from({ length: 10_000 }, () => principal(randomKidToken())),
  )
  t.equal(outcomes.filter((outcome) => outcome.status === 'rejected').length, 10_000, 'all refused')
  t.equal(reads, 2, '10,000 concurrent unknown kids: one re-read, shared')
  for (let index = 0; index < 200; index += 1)
    await gatewayErrorOf(() => principal(randomKidToken()))
  t.equal(reads, 2, 'none within the cooldown')

  clock.advance(30_001)
  await gatewayErrorOf(() => principal(randomKidToken()))
  t.equal(reads, 3, 'one more once the cooldown has passed')
  await gatewayErrorOf(() => principal(randomKidToken()))
  t.equal(reads, 3)
  t.match(
    await metrics.render(),
    /portcullis_jwks_reloads_total\{result="unchanged",trigger="unknown_kid"\} 2/,
  )
})

void t.test(
  'an unknown kid finds a key added to the file (rotation without waiting for the watch)',
  async (t) => {
    const dir = t.testdir({ 'jwks.json': KEY_A })
    const path = `${dir}/jwks.json`
    const { principal } = await createVerifier(t, {
      algorithm: 'RS256',
      jwks_file: path,
      jwks_watch: false,
    })
    await writeFile(path, JSON.stringify({ keys: [JWK_A, JWK_B] }))
    t.equal((await principal(await tokenB())).userId, 'bob')
    t.equal((await principal(await tokenA())).userId, 'alice')
  },
)
