/**
 * The JWKS file changes under a running gateway: the watch, the SIGHUP action (`reload()`) and the
 * unknown-kid re-read with its cooldown, observed through the proxy and the admin `/metrics`.
 */
import { randomBytes, randomUUID, type KeyObject } from 'node:crypto'
import { rename, writeFile } from 'node:fs/promises'
import t, { type Test } from 'tap'
import { startGateway, type TestGateway } from '../../helpers/gateway.js'
import { fixtures, publicJwk, signJwt } from '../../helpers/jwt.js'
import { parseMetrics } from '../../helpers/metrics.js'
import { httpRequest } from '../../helpers/raw-http.js'
import { startRuntime } from '../../helpers/runtime.js'

const JWK = {
  old: publicJwk(fixtures.rsaPublicPem(), { kid: 'old' }),
  new: publicJwk(fixtures.rsa2PublicPem(), { kid: 'new' }),
  third: publicJwk(fixtures.rsaPublicPem(), { kid: 'third' }),
}
// The key that signs a token with this kid; any other kid is signed with the first RSA key.
const SIGNER: Readonly<Record<string, () => KeyObject>> = {
  new: fixtures.rsa2Private,
}

function token(kid: string) {
  return signJwt(
    { sub: `user-${kid}`, scopes: ['agents:read'], exp: Math.floor(Date.now() / 1000) + 3600 },
    { alg: 'RS256', key: (SIGNER[kid] ?? fixtures.rsaPrivate)(), kid },
  )
}

/** Writes a temporary file beside `path` and renames it over `path`: an atomic replace. */
async function replaceAtomically(path: string, keys: unknown[]): Promise<void> {
  const temporary = `${path}.${randomBytes(4).toString('hex')}.tmp`
  await writeFile(temporary, JSON.stringify({ keys }))
  await rename(temporary, path)
}

async function status(gateway: TestGateway, bearer: string): Promise<number> {
  const reply = await httpRequest(gateway.url, {
    path: '/agents',
    headers: { authorization: `Bearer ${bearer}` },
  })
  return reply.status
}

/** Sum of `portcullis_jwks_reloads_total` samples with these labels. */
async function reloads(gateway: TestGateway, labels: Record<string, string>): Promise<number> {
  return parseMetrics(await gateway.metrics())
    .filter((sample) => sample.name === 'portcullis_jwks_reloads_total')
    .filter((sample) =>
      Object.entries(labels).every(([key, value]) => sample.labels[key] === value),
    )
    .reduce((sum, sample) => sum + sample.value, 0)
}

/** Polls the admin metrics until the watch has applied a change (bounded; no timing asserted). */
async function watchApplied(gateway: TestGateway, count: number): Promise<void> {
  const deadline = Date.now() + 10_000
  while ((await reloads(gateway, { trigger: 'watch', result: 'updated' })) < count) {
    if (Date.now() > deadline) throw new Error('the JWKS watch never applied the change')
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

async function start(t: Test, auth: Record<string, unknown>) {
  const dir = t.testdir({ 'jwks.json': JSON.stringify({ keys: [JWK.old] }) })
  const path = `${dir}/jwks.json`
  const runtime = await startRuntime(t)
  const gateway = await startGateway(t, {
    upstream: { url: runtime.url },
    auth: { algorithm: 'RS256', jwks_file: path, authorization: true, ...auth },
    service_accounts: { enabled: false },
  })
  return { path, runtime, gateway }
}

void t.test(
  'the watched file is replaced atomically: the new key works, the removed one is refused',
  async (t) => {
    const { path, runtime, gateway } = await start(t, { jwks_watch: true })
    const old = await token('old')
    t.equal(await status(gateway, old), 200)
    t.equal(await status(gateway, old), 200, 'a second time, from the verified-token cache')

    await replaceAtomically(path, [JWK.new])
    await watchApplied(gateway, 1)
    t.equal(await status(gateway, await token('new')), 200, 'the new key is accepted')
    runtime.clear()
    t.equal(await status(gateway, old), 401, 'the removed key is refused, cached token or not')
    t.equal(runtime.requests.length, 0, 'nothing reached the upstream')
  },
)

void t.test('reload() (the SIGHUP action) applies a change the watch does not see', async (t) => {
  const { path, gateway } = await start(t, { jwks_watch: false })
  t.equal(await status(gateway, await token('nope')), 401, 'one unknown kid…')
  t.equal(await reloads(gateway, { trigger: 'unknown_kid' }), 1, '…used the one re-read')

  await replaceAtomically(path, [JWK.new])
  const fresh = await token('new')
  t.equal(
    await status(gateway, fresh),
    401,
    'not watched, and the unknown-kid re-read is cooling down',
  )
  await gateway.gateway.reload()
  t.equal(await reloads(gateway, { trigger: 'signal', result: 'updated' }), 1)
  t.equal(await status(gateway, fresh), 200, 'the new key works after reload()')
  t.equal(await status(gateway, await token('old')), 401, 'the removed key is refused')
  await gateway.gateway.reload()
  t.equal(
    await reloads(gateway, { trigger: 'signal', result: 'unchanged' }),
    1,
    'same content: no swap',
  )
})

void t.test('unknown kids: one re-read per cooldown, never a reload storm', async (t) => {
  const { path, runtime, gateway } = await start(t, { jwks_watch: false })
  await replaceAtomically(path, [JWK.old, JWK.new])
  t.equal(
    await status(gateway, await token('new')),
    200,
    'the first unknown kid re-reads the file and finds the added key',
  )
  t.equal(await reloads(gateway, { trigger: 'unknown_kid', result: 'updated' }), 1)

  await replaceAtomically(path, [JWK.old, JWK.new, JWK.third])
  runtime.clear()
  const burst = await Promise.all(
    Array.from({ length: 30 }, async () => status(gateway, await token(randomUUID()))),
  )
  t.same(new Set(burst), new Set([401]), '30 random kids in parallel are refused')
  for (let index = 0; index < 20; index++) {
    t.equal(await status(gateway, await token(`serial-${index}`)), 401)
  }
  t.equal(
    await status(gateway, await token('third')),
    401,
    'within the cooldown even a kid that now exists in the file is not looked for',
  )
  t.equal(await reloads(gateway, { trigger: 'unknown_kid' }), 1, 'still exactly one re-read')
  t.equal(runtime.requests.length, 0, 'nothing reached the upstream')
  await gateway.gateway.reload()
  t.equal(await status(gateway, await token('third')), 200, 'an explicit reload finds it')
})
