import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { Child, childEnv, PROJECT_ROOT, tsxArgs } from '../../helpers/child-process.js'
import { startGateway, type Teardown } from '../../helpers/gateway.js'
import { postgresSkipReason, startPostgres } from '../../helpers/postgres.js'
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

void t.test('migrate applies the schema once', { skip: postgresSkipReason() }, async (t) => {
  const postgres = await startPostgres(t)
  const env = { DATABASE_URL: postgres.url, OS_SECURITY_KEY: 'k' }
  const first = await portcullis(t, ['migrate', '--config', 'config/portcullis.yaml'], env)
  t.equal(first.code, 0, first.stderr)
  t.match(first.stdout, /^Applied: 001/)
  const second = await portcullis(t, ['migrate', '--config', 'config/portcullis.yaml'], env)
  t.equal(second.code, 0, second.stderr)
  t.equal(second.stdout, 'Schema is up to date.')
})

void t.test('migrate initialises an empty embedded store, schema included', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'portcullis-migrate-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const env = { PORTCULLIS_DATA_DIR: join(dir, 'db'), OS_SECURITY_KEY: 'k' }
  const first = await portcullis(t, ['migrate', '--config', 'config/portcullis.yaml'], env)
  t.equal(first.code, 0, first.stderr)
  t.equal(first.stdout, 'Schema is up to date.', 'the shipped template holds every migration')
  t.ok(existsSync(join(dir, 'db', 'PG_VERSION')), 'the data directory was initialised')
})

void t.test('--version and the tokens subcommands’ help', async (t) => {
  const version = await portcullis(t, ['--version'])
  t.equal(version.code, 0)
  const pkg = JSON.parse(await readFile(join(PROJECT_ROOT, 'package.json'), 'utf8')) as {
    version: string
  }
  t.ok(version.stdout.startsWith(`${pkg.version} (commit `), version.stdout)
  const help = await portcullis(t, ['tokens', '--help'])
  t.equal(help.code, 0)
  t.match(help.stdout, /create \[options\] <name> +Mint a token for a new service account/)
  t.match(help.stdout, /list \[options\] +List service accounts/)
  t.match(help.stdout, /revoke \[options\] <name-or-id> +Revoke an account by name or id/)
  const top = await portcullis(t, ['--help'])
  t.match(top.stdout, /Exit codes:\n {2}0 {2}success\n {2}1 .*\n {2}2 .*\n {2}3 .*\n {2}4 /)
})

void t.test('mint: malformed and privileged scopes, by the API and the CLI', async (t) => {
  const runtime = await startRuntime(t)
  const gateway = await startGateway(t, {
    upstream: { url: runtime.url },
    auth: { security_key: 'root-key' },
  })
  const env = { OS_SECURITY_KEY: 'root-key', PORTCULLIS_URL: gateway.url }
  const mint = (body: unknown) =>
    fetch(`${gateway.url}/service-accounts`, {
      method: 'POST',
      headers: { authorization: 'Bearer root-key', 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })

  // AgentOS 2.9.0's grammar (parse_scope): only the number of `:`-separated parts is checked.
  for (const [scope, status] of [
    ['agents::run', 201],
    ['agents:', 201],
    [':run', 201],
    ['bogus', 400],
    ['a:b:c:d', 400],
    ['', 400],
  ] as const) {
    const name = `m-${Math.random().toString(36).slice(2, 10)}`
    const response = await mint({ name, scopes: [{ scope }] })
    t.equal(response.status, status, `API: ${JSON.stringify(scope)} → ${status}`)
    if (status === 400) t.same(await response.json(), { detail: `Invalid scope(s): ${scope}` })
  }

  const empty = await portcullis(
    t,
    ['tokens', 'create', 'empty-id', '--scopes', 'agents::run'],
    env,
  )
  t.equal(empty.code, 0, 'the CLI mints what the API accepts')
  const token = /svc_pat_[0-9A-Za-z]+/.exec(empty.stdout)?.[0] ?? ''
  const run = await fetch(`${gateway.url}/agents/a1/runs`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: 'message=hi',
  })
  t.equal(run.status, 403, 'an empty resource id names no agent (a deliberate deviation)')

  const invalid = await portcullis(t, ['tokens', 'create', 'bad', '--scopes', 'a:b:c:d'], env)
  t.equal(invalid.code, 1)
  t.equal(invalid.stderr, 'portcullis: mint failed (400): Invalid scope(s): a:b:c:d')

  const privileged = await portcullis(
    t,
    ['tokens', 'create', 'writer', '--scopes', 'sessions:write'],
    env,
  )
  t.equal(privileged.code, 1)
  t.equal(
    privileged.stderr,
    'portcullis: mint failed (400): Privileged scope(s) require allow_privileged_scopes=true: sessions:write. Privileged tokens must be deliberate, never accidental. Pass --privileged to grant them.',
  )
})
