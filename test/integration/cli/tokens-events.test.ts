/**
 * `portcullis tokens events` against a running gateway, after mints and revokes through its API
 * (the second mint of `ci-bot` is also a rotation).
 */
import t from 'tap'
import { portcullis } from '../../helpers/cli.js'
import { startGateway } from '../../helpers/gateway.js'
import { startRuntime } from '../../helpers/runtime.js'

const KEY = 'root-key-5f0c8e2a9b7d4c1e6a3f8b0d'

interface Event {
  seq: number
  type: string
  account_name: string | null
}

void t.test('tokens events shows the audit trail, filtered and paged', async (t) => {
  const runtime = await startRuntime(t)
  const gateway = await startGateway(t, {
    upstream: { url: runtime.url },
    auth: { security_key: KEY },
  })
  const mint = async (name: string, scopes: string[]) => {
    const response = await fetch(`${gateway.url}/service-accounts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name, scopes: scopes.map((scope) => ({ scope })) }),
    })
    t.equal(response.status, 201)
    return (await response.json()) as { id: string; token: string }
  }
  const env = { OS_SECURITY_KEY: KEY, PORTCULLIS_URL: gateway.url }
  const run = async (...args: string[]) => {
    const result = await portcullis(t, ['tokens', ...args], env)
    t.equal(result.code, 0, `tokens ${args.join(' ')}: ${result.stderr}`)
    return result.stdout
  }
  const json = async (...args: string[]) => JSON.parse(await run(...args, '--json')) as Event[]

  const first = await mint('ci-bot', ['agents:run', 'sessions:read'])
  await mint('docs-bot', ['agents:run'])
  const revoked = await fetch(`${gateway.url}/service-accounts/${first.id}`, {
    method: 'DELETE',
    headers: { authorization: `Bearer ${KEY}` },
  })
  t.equal(revoked.status, 204)
  await mint('ci-bot', ['agents:run'])

  const table = await run('events')
  const lines = table.trimEnd().split('\n')
  t.match(lines[0], /^TIME +SEQ +TYPE +ACCOUNT +ACTOR +FROM +DETAILS$/)
  t.equal(lines.length, 6, 'a header and five events')
  t.match(lines[1], / 5 +rotation +ci-bot +\(security key\) .*revoked_account_id=/)
  t.match(lines[2], /^\d{4}-\d\d-\d\dT\S+Z +4 +mint +ci-bot +\(security key\) +127\.0\.0\.1 /)
  t.match(lines[3], / 3 +revoke +ci-bot +\(security key\) .*revoked_at=\d+/)
  for (const detail of ['scopes=agents:run,sessions:read', 'owner=null', 'privileged=false'])
    t.ok(lines[5]?.includes(` ${detail}`), detail)
  t.notOk(table.includes(first.token.slice(8)), 'never a token')
  t.equal((await run('events', '--until', '2000-01-01')).trim(), 'No audit events.')

  t.same(
    (await json('events')).map((event) => `${event.seq} ${event.type} ${event.account_name}`),
    ['5 rotation ci-bot', '4 mint ci-bot', '3 revoke ci-bot', '2 mint docs-bot', '1 mint ci-bot'],
  )
  t.same(
    (await json('events', 'ci-bot')).map((event) => event.seq),
    [5, 4, 3, 1],
    'by name: every account that bore it',
  )
  t.same(
    (await json('events', '--type', 'revoke', 'mint', '--since', '2000-01-01', '--limit', '3')).map(
      (event) => event.seq,
    ),
    [4, 3, 2],
    'filtered, at most --limit',
  )

  const badType = await portcullis(t, ['tokens', 'events', '--type', 'minted'], env)
  t.equal(badType.code, 1)
  t.match(badType.stderr, /events failed \(422\): type\.0: Input should be 'mint', 'revoke'/)
  const badTime = await portcullis(t, ['tokens', 'events', '--since', 'last week', '--json'], env)
  t.equal(badTime.code, 1)
  t.match(JSON.parse(badTime.stdout), { detail: [{ loc: ['query', 'since'] }] }, 'the 422 body')
  const badLimit = await portcullis(t, ['tokens', 'events', '--limit', '0'], env)
  t.equal(badLimit.code, 1)
  t.match(badLimit.stderr, /--limit must be a positive whole number, not 0/)

  // More events than the API's largest page.
  for (let index = 0; index < 101; index += 1) await mint(`bulk-${index}`, ['agents:run'])
  const events = await json('events', '--limit', '104')
  t.equal(events.length, 104)
  t.equal(events[0]?.seq, 106, 'newest first')
  t.equal(events[103]?.seq, 3)
  t.equal(new Set(events.map((event) => event.seq)).size, 104, 'each once')
})
