import { mkdtemp, readFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { Child, childEnv, tsxArgs } from '../../helpers/child-process.js'
import { startGateway, type Teardown } from '../../helpers/gateway.js'
import { startRuntime } from '../../helpers/runtime.js'

interface Run {
  code: number | null
  stdout: string
  stderr: string
}

/** Runs `portcullis <args>` (the real CLI, from source) to completion. */
async function portcullis(
  t: Teardown,
  args: string[],
  env: Record<string, string> = {},
): Promise<Run> {
  const child = new Child(t, tsxArgs('src/main.ts', ...args), childEnv(env))
  const { code } = await child.exit(60_000)
  return { code, stdout: child.stdout.join('\n'), stderr: child.stderr.join('\n') }
}

void t.test('tokens create, list and revoke against a running gateway', async (t) => {
  const runtime = await startRuntime(t)
  const gateway = await startGateway(t, {
    upstream: { url: runtime.url },
    auth: { security_key: 'root-key' },
  })
  const env = { OS_SECURITY_KEY: 'root-key', PORTCULLIS_URL: gateway.url }

  const created = await portcullis(
    t,
    [
      'tokens',
      'create',
      'ci-bot',
      '--scopes',
      'agents:run',
      'sessions:read',
      '--expires',
      '7d',
      '--json',
    ],
    env,
  )
  t.equal(created.code, 0, created.stderr)
  const account = JSON.parse(created.stdout) as {
    token: string
    principal: string
    expires_at: number
    scopes: { raw: string }[]
  }
  t.equal(account.principal, 'sa:ci-bot')
  t.same(
    account.scopes.map((scope) => scope.raw),
    ['agents:run', 'sessions:read'],
  )
  t.ok(Math.abs(account.expires_at - (Date.now() / 1000 + 7 * 86_400)) < 120, 'expires in 7 days')

  const run = await fetch(`${gateway.url}/agents/a1/runs`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${account.token}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: 'message=hi',
  })
  t.equal(run.status, 200, 'the minted token works')

  const human = await portcullis(t, ['tokens', 'create', 'ci-bot'], env)
  t.equal(human.code, 1, 'a duplicate name fails')
  t.match(human.stderr, /already exists; rotate it with: portcullis tokens revoke ci-bot/)

  const privileged = await portcullis(
    t,
    ['tokens', 'create', 'admin-bot', '--scopes', 'os:admin', '--privileged', '--expires', 'never'],
    env,
  )
  t.equal(privileged.code, 0, privileged.stderr)
  t.match(privileged.stdout, /Created sa:admin-bot .*expires never/)
  t.match(privileged.stdout, /Token \(shown once, store it now\):\nsvc_pat_[0-9A-Za-z]{49}/)

  const listed = await portcullis(t, ['tokens', 'list'], env)
  t.equal(listed.code, 0, listed.stderr)
  t.match(listed.stdout, /^NAME +ID +TOKEN +STATE/)
  t.match(listed.stdout, /ci-bot .* active .*agents:run sessions:read/)
  t.notOk(listed.stdout.includes(account.token), 'list never prints a token')

  const revoked = await portcullis(t, ['tokens', 'revoke', 'ci-bot'], env)
  t.equal(revoked.code, 0, revoked.stderr)
  t.match(revoked.stdout, /^Revoked ci-bot \([0-9a-f-]{36}\)/)
  const after = await fetch(`${gateway.url}/sessions`, {
    headers: { authorization: `Bearer ${account.token}` },
  })
  t.equal(after.status, 401, 'the revoked token is refused')

  const json = await portcullis(t, ['tokens', 'list', '--include-revoked', '--json'], env)
  const all = JSON.parse(json.stdout) as { name: string; revoked_at: number | null }[]
  t.same(all.map((entry) => [entry.name, entry.revoked_at !== null]).sort(), [
    ['admin-bot', false],
    ['ci-bot', true],
  ])

  const unknown = await portcullis(t, ['tokens', 'revoke', 'nobody'], env)
  t.equal(unknown.code, 1)
  t.match(unknown.stderr, /no active service account named 'nobody'/)
})

void t.test('tokens commands explain a rejected or missing credential', async (t) => {
  const runtime = await startRuntime(t)
  const gateway = await startGateway(t, {
    upstream: { url: runtime.url },
    auth: { security_key: 'root-key' },
  })
  const wrong = await portcullis(t, ['tokens', 'list'], {
    OS_SECURITY_KEY: 'not-the-key',
    PORTCULLIS_URL: gateway.url,
  })
  t.equal(wrong.code, 1)
  t.match(
    wrong.stderr,
    /the gateway rejected the admin credential \(401: Invalid authentication token\)/,
  )
  const missing = await portcullis(t, ['tokens', 'list', '--url', gateway.url])
  t.equal(missing.code, 1)
  t.match(missing.stderr, /set PORTCULLIS_ADMIN_TOKEN \(or OS_SECURITY_KEY\)/)
})

void t.test('keys generate and jwt mint produce tokens the gateway accepts', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'portcullis-keys-'))
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

void t.test('migrate applies the schema once', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'portcullis-migrate-'))
  const env = { PORTCULLIS_DATA_DIR: join(dir, 'db'), OS_SECURITY_KEY: 'k' }
  const first = await portcullis(t, ['migrate', '--config', 'config/portcullis.yaml'], env)
  t.equal(first.code, 0, first.stderr)
  t.match(first.stdout, /^Applied: 001/)
  const second = await portcullis(t, ['migrate', '--config', 'config/portcullis.yaml'], env)
  t.equal(second.code, 0, second.stderr)
  t.equal(second.stdout, 'Schema is up to date.')
})
