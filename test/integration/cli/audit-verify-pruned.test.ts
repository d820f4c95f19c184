/**
 * `portcullis audit verify` on a trail retention pruned in batches, on PostgreSQL with the gateway
 * running: whole, it passes and says what retention removed; with the prune event changed or an event
 * removed beyond what it records (straight in the database, the trigger disabled as an intruder
 * would), it fails naming the event.
 */
import t from 'tap'
import { sql } from '../../conformance/service-accounts/harness.js'
import { ADMIN, jConfig, jwt, stack } from '../../conformance/fixtures.js'
import { portcullis } from '../../helpers/cli.js'
import { FakeClock, FakeTimers } from '../../helpers/fake-time.js'
import { postgresSkipReason, startPostgres } from '../../helpers/postgres.js'
import { startRuntime } from '../../helpers/runtime.js'
import { waitFor } from '../../helpers/wait.js'

const DAY = 86_400_000

void t.test('PostgreSQL, a chain retention pruned', { skip: postgresSkipReason() }, async (t) => {
  const runtime = await startRuntime(t)
  const server = await startPostgres(t)
  const url = await server.createDatabase()
  const clock = new FakeClock(Date.UTC(2025, 0, 1))
  const timers = new FakeTimers(clock)
  const fixture = await stack(
    t,
    runtime,
    jConfig(
      {},
      {
        service_accounts: { enabled: true },
        database: { url },
        audit: { retention_days: 30, prune_batch_size: 2 },
      },
    ),
    {},
    { clock, timers },
  )
  await waitFor(() => timers.pending === 1, 'the start-up retention run')
  const admin = await jwt([ADMIN], { sub: 'auditor' })
  const mint = async (name: string) => {
    const reply = await fixture.call('POST', '/service-accounts', { token: admin, json: { name } })
    if (reply.status !== 201) throw new Error(`mint: ${reply.status} ${reply.text}`)
  }
  for (const name of ['one', 'two', 'three']) await mint(name)
  clock.advance(20 * DAY)
  await mint('four')
  clock.advance(15 * DAY)
  await timers.fireNext()
  await waitFor(() => timers.pending === 1, 'the daily retention run')

  const run = (statement: string) => sql(fixture.gateway, statement)
  t.same(
    (await run('SELECT seq, type FROM portcullis_audit_events ORDER BY seq')).map((row) => [
      Number(row.seq),
      row.type,
    ]),
    [
      [4, 'mint'],
      [5, 'prune'],
      [6, 'prune'],
    ],
    'removed in two batches of at most two, each recorded by a prune event',
  )
  const verify = () =>
    portcullis(t, ['audit', 'verify', '--config', 'config/portcullis.yaml'], {
      OS_SECURITY_KEY: 'k-0123456789abcdef0123456789abcdef',
      DATABASE_URL: url,
    })
  const whole = await verify()
  t.equal(whole.code, 0, whole.stdout)
  t.match(
    whole.stdout,
    /^Events up to 3 were removed by retention \(older than 2025-01-06T00:00:00\.000Z\), as prune event 6 records; checked from 4\.\n3 event\(s\) checked; newest: 6 [0-9a-f]{64}\nNo event was changed/,
  )

  await run('ALTER TABLE portcullis_audit_events DISABLE TRIGGER USER')
  const broken = async (statement: string): Promise<string> => {
    await run(statement)
    const report = await verify()
    t.equal(report.code, 1, statement)
    return report.stdout
  }
  const setRemoved = (count: number) =>
    `UPDATE portcullis_audit_events SET details = jsonb_set(details, '{removed}', '${count}') WHERE seq = 6`
  t.match(
    await broken(setRemoved(4)),
    /^event 4 is not the start of the chain, and no prune event records the removal of the events before it\nevent 6 changed/,
    'a changed prune event anchors nothing',
  )
  await run(setRemoved(1))
  t.equal((await verify()).code, 0, 'changed back: whole again')
  t.match(
    await broken('DELETE FROM portcullis_audit_events WHERE seq = 4'),
    /^event 5 is not the start of the chain, and no prune event records/,
    'an event removed beyond what the prune event records',
  )
})
