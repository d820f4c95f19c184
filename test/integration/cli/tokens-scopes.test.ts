/** Minting scopes the AgentOS grammar accepts, refuses or reserves, by the API and by the CLI. */
import t from 'tap'
import { portcullis } from '../../helpers/cli.js'
import { startGateway } from '../../helpers/gateway.js'
import { startRuntime } from '../../helpers/runtime.js'

void t.test('mint: malformed and privileged scopes, by the API and the CLI', async (t) => {
  const runtime = await startRuntime(t)
  const gateway = await startGateway(t, {
    upstream: { url: runtime.url },
    auth: { security_key: 'root-key-5f0c8e2a9b7d4c1e6a3f8b0d' },
  })
  const env = { OS_SECURITY_KEY: 'root-key-5f0c8e2a9b7d4c1e6a3f8b0d', PORTCULLIS_URL: gateway.url }
  const mint = (body: unknown) =>
    fetch(`${gateway.url}/service-accounts`, {
      method: 'POST',
      headers: {
        authorization: 'Bearer root-key-5f0c8e2a9b7d4c1e6a3f8b0d',
        'content-type': 'application/json',
      },
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
