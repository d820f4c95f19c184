/** `portcullis keys generate` and `portcullis jwt mint`: development keys and tokens the gateway accepts. */
import { spawnSync } from 'node:child_process'
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { PROJECT_ROOT } from '../../helpers/child-process.js'
import { portcullis } from '../../helpers/cli.js'
import { startGateway } from '../../helpers/gateway.js'
import { startRuntime } from '../../helpers/runtime.js'

void t.test('keys generate and jwt mint produce tokens the gateway accepts', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'portcullis-keys-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const generated = await portcullis(t, [
    'keys',
    'generate',
    '--alg',
    'ES256',
    '--kid',
    'dev-1',
    '--out',
    dir,
  ])
  t.equal(generated.code, 0, generated.stderr)
  const jwks = JSON.parse(await readFile(join(dir, 'jwks.json'), 'utf8')) as {
    keys: { kid: string; alg: string; d?: string }[]
  }
  t.equal(jwks.keys[0]?.kid, 'dev-1')
  t.equal(jwks.keys[0]?.alg, 'ES256')
  t.equal(jwks.keys[0]?.d, undefined, 'the JWKS holds no private part')
  t.equal(
    (await stat(join(dir, 'dev-1.private.pem'))).mode & 0o777,
    0o600,
    'the private key is readable by its owner only',
  )
  const ignored = spawnSync('git', ['check-ignore', '--no-index', '-q', 'keys/k1.private.pem'], {
    cwd: PROJECT_ROOT,
  })
  t.equal(ignored.status, 0, 'keys/ (the getting-started output directory) is git-ignored')

  const refused = await portcullis(t, [
    'jwt',
    'mint',
    '--key',
    join(dir, 'dev-1.private.pem'),
    '--alg',
    'ES256',
    '--sub',
    'alice',
  ])
  t.equal(refused.code, 1, 'minting is refused without an explicit development flag')
  t.match(refused.stderr, /refusing to mint: pass --allow-dev/)

  const minted = await portcullis(t, [
    'jwt',
    'mint',
    '--allow-dev',
    '--key',
    join(dir, 'dev-1.private.pem'),
    '--alg',
    'ES256',
    '--kid',
    'dev-1',
    '--sub',
    'alice',
    '--scopes',
    'agents:read',
  ])
  t.equal(minted.code, 0, minted.stderr)
  const token = minted.stdout.trim()

  const runtime = await startRuntime(t)
  const gateway = await startGateway(t, {
    upstream: { url: runtime.url },
    auth: { algorithm: 'ES256', jwks_file: join(dir, 'jwks.json'), authorization: true },
  })
  const allowed = await fetch(`${gateway.url}/agents`, {
    headers: { authorization: `Bearer ${token}` },
  })
  t.equal(allowed.status, 200, 'agents:read lists agents')
  const denied = await fetch(`${gateway.url}/sessions`, {
    headers: { authorization: `Bearer ${token}` },
  })
  t.equal(denied.status, 403, 'and nothing more')
})
