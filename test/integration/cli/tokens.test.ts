/** `portcullis tokens create | list | revoke` against a running gateway, as an operator runs them. */
import t from 'tap'
import { pollUntil } from '../../conformance/service-accounts/harness.js'
import { portcullis } from '../../helpers/cli.js'
import { startGateway } from '../../helpers/gateway.js'
import { startRuntime } from '../../helpers/runtime.js'

void t.test('tokens create, list and revoke against a running gateway', async (t) => {
  const runtime = await startRuntime(t)
  const gateway = await startGateway(t, {
    upstream: { url: runtime.url },
    auth: { security_key: 'root-key-5f0c8e2a9b7d4c1e6a3f8b0d' },
  })
  const env = { OS_SECURITY_KEY: 'root-key-5f0c8e2a9b7d4c1e6a3f8b0d', PORTCULLIS_URL: gateway.url }

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

  // The use is recorded after the answer: wait for it, then list it as a person reads it.
  let lastUsed: { last_used_at: number; last_used_from: string | null } | undefined
  await pollUntil(async () => {
    const accounts = await fetch(`${gateway.url}/service-accounts`, {
      headers: { authorization: `Bearer ${env.OS_SECURITY_KEY}` },
    })
    const { data } = (await accounts.json()) as {
      data: { name: string; last_used_at: number; last_used_from: string | null }[]
    }
    lastUsed = data.find((entry) => entry.name === 'ci-bot')
    return lastUsed?.last_used_from != null
  }, 'the use of ci-bot to be recorded')
  const listed = await portcullis(t, ['tokens', 'list'], env)
  t.equal(listed.code, 0, listed.stderr)
  t.match(listed.stdout, /^NAME +ID +TOKEN +STATE +EXPIRES +LAST USED +LAST USED FROM +SCOPES\n/)
  const usedOn = new Date((lastUsed?.last_used_at ?? 0) * 1000).toISOString().slice(0, 10)
  const row = listed.stdout.split('\n').find((line) => line.startsWith('ci-bot '))
  t.match(row, / active +\S+ +(\S+) +(\S+) +agents:run sessions:read$/)
  const [, usedAt, usedFrom] = / active +\S+ +(\S+) +(\S+) +agents:run/.exec(row ?? '') ?? []
  t.same(
    [usedAt, usedFrom],
    [usedOn, lastUsed?.last_used_from],
    'when and where the token was last used',
  )
  t.match(listed.stdout, /admin-bot .* active +never +- +- +os:admin/, 'never used: no address')
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
    auth: { security_key: 'root-key-5f0c8e2a9b7d4c1e6a3f8b0d' },
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
