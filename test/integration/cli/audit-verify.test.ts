/**
 * `portcullis audit verify` on the trail a real gateway wrote (PostgreSQL, and the embedded store
 * once its gateway stopped): whole, then with an event changed, re-hashed or deleted straight in
 * the database, which the trigger refuses until it is disabled as an intruder would.
 */
import t, { type Test } from 'tap'
import { eventHash } from '../../../src/service-accounts/audit-chain.js'
import { parseEventRow } from '../../../src/service-accounts/audit-events-sql.js'
import { PgliteSqlClient } from '../../../src/service-accounts/pglite-client.js'
import type { SqlRow } from '../../../src/service-accounts/sql-client.js'
import { sql } from '../../conformance/service-accounts/harness.js'
import { ADMIN, jConfig, jwt, stack, type Stack } from '../../conformance/fixtures.js'
import { portcullis } from '../../helpers/cli.js'
import { freshEmbeddedDataDir } from '../../helpers/embedded-store.js'
import { postgresSkipReason, startPostgres } from '../../helpers/postgres.js'
import { startRuntime } from '../../helpers/runtime.js'

const runtime = await startRuntime(t)
const CONFIG = ['--config', 'config/portcullis.yaml']
const KEY = { OS_SECURITY_KEY: 'k-0123456789abcdef0123456789abcdef' }

/** Three events through the API: two mints and a revoke. */
async function writeTrail(fixture: Stack): Promise<void> {
  const admin = await jwt([ADMIN], { sub: 'auditor' })
  const ids: string[] = []
  for (const name of ['one', 'two']) {
    const reply = await fixture.call('POST', '/service-accounts', { token: admin, json: { name } })
    if (reply.status !== 201) throw new Error(`mint: ${reply.status} ${reply.text}`)
    ids.push((reply.body as { id: string }).id)
  }
  const revoked = await fixture.call('DELETE', `/service-accounts/${ids[0]}`, { token: admin })
  if (revoked.status !== 204) throw new Error(`revoke: ${revoked.status}`)
}

type Run = (statement: string) => Promise<unknown>

/** The attacks, each on a trail of three events; `reset` gives a fresh trail. */
async function attacks(
  t: Test,
  verify: () => Promise<{ code: number | null; stdout: string }>,
  reset: () => Promise<Run>,
): Promise<void> {
  let run = await reset()
  const whole = await verify()
  t.equal(whole.code, 0, whole.stdout)
  t.match(whole.stdout, /^3 event\(s\) checked; newest: 3 [0-9a-f]{64}\nNo event was changed/)
  await t.rejects(
    run(`UPDATE portcullis_audit_events SET actor = 'mallory' WHERE seq = 2`),
    /append-only/,
    'the trigger refuses a change',
  )
  await t.rejects(run('DELETE FROM portcullis_audit_events WHERE seq = 2'), /append-only/)
  await run('ALTER TABLE portcullis_audit_events DISABLE TRIGGER USER')

  const tampered = async (statement: string, fresh: boolean): Promise<string> => {
    if (fresh) {
      run = await reset()
      await run('ALTER TABLE portcullis_audit_events DISABLE TRIGGER USER')
    }
    await run(statement)
    const report = await verify()
    t.equal(report.code, 1, statement)
    return report.stdout
  }
  t.match(
    await tampered(`UPDATE portcullis_audit_events SET actor = 'mallory' WHERE seq = 2`, false),
    /^event 2 changed: its hash does not cover its contents\n3 event/,
  )
  t.match(
    await tampered('DELETE FROM portcullis_audit_events WHERE seq = 2', true),
    /^event 3 does not follow the event before it/,
  )
  t.match(
    await tampered('DELETE FROM portcullis_audit_events WHERE seq = 1', true),
    /^event 2 is not the start of the chain/,
  )
}

void t.test('PostgreSQL, with the gateway running', { skip: postgresSkipReason() }, async (t) => {
  const server = await startPostgres(t)
  let url = ''
  const reset = async (): Promise<Run> => {
    url = await server.createDatabase()
    const fixture = await stack(
      t,
      runtime,
      jConfig(
        {},
        {
          service_accounts: { enabled: true },
          database: { url },
        },
      ),
    )
    await writeTrail(fixture)
    return (statement) => sql(fixture.gateway, statement)
  }
  const verify = () => portcullis(t, ['audit', 'verify', ...CONFIG], { ...KEY, DATABASE_URL: url })
  await attacks(t, verify, reset)

  // Changing an event and its hash moves the break to the event after it.
  const run = await reset()
  await run('ALTER TABLE portcullis_audit_events DISABLE TRIGGER USER')
  const [row] = (await run('SELECT * FROM portcullis_audit_events WHERE seq = 2')) as SqlRow[]
  if (row === undefined) throw new Error('no event 2')
  const forged = { ...parseEventRow(row), actor: 'mallory' }
  await run(
    `UPDATE portcullis_audit_events SET actor = 'mallory', hash = '${eventHash(forged)}' WHERE seq = 2`,
  )
  const json = await portcullis(t, ['audit', 'verify', '--json', ...CONFIG], {
    ...KEY,
    DATABASE_URL: url,
  })
  t.equal(json.code, 1)
  t.same((JSON.parse(json.stdout) as { problems: unknown }).problems, [
    { seq: 3, problem: 'broken_link' },
  ])
})

void t.test('the embedded store, its gateway stopped', async (t) => {
  let dataDir = ''
  const reset = async (): Promise<Run> => {
    dataDir = await freshEmbeddedDataDir(t)
    const fixture = await stack(
      t,
      runtime,
      jConfig(
        {},
        {
          service_accounts: { enabled: true },
          database: { data_dir: dataDir },
        },
      ),
    )
    await writeTrail(fixture)
    await fixture.gateway.stop()
    return async (statement) => {
      const client = await PgliteSqlClient.open(dataDir)
      try {
        return await client.query(statement)
      } finally {
        await client.close()
      }
    }
  }
  const verify = () =>
    portcullis(t, ['audit', 'verify', ...CONFIG], { ...KEY, PORTCULLIS_DATA_DIR: dataDir })
  await attacks(t, verify, reset)

  const empty = await freshEmbeddedDataDir(t)
  const none = await portcullis(t, ['audit', 'verify', ...CONFIG], {
    ...KEY,
    PORTCULLIS_DATA_DIR: empty,
  })
  t.equal(none.code, 0)
  t.equal(none.stdout, 'The audit trail is empty.')
})
