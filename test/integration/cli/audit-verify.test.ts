/**
 * `portcullis audit verify` on the trail a real gateway wrote to PostgreSQL, the gateway running:
 * whole, then with an event changed, re-hashed or deleted straight in the database.
 */
import t from 'tap'
import { eventHash } from '../../../src/service-accounts/audit-chain.js'
import { parseEventRow } from '../../../src/service-accounts/audit-events-sql.js'
import type { SqlRow } from '../../../src/service-accounts/sql-client.js'
import { sql } from '../../conformance/service-accounts/harness.js'
import { jConfig, stack } from '../../conformance/fixtures.js'
import { portcullis } from '../../helpers/cli.js'
import { postgresSkipReason, startPostgres } from '../../helpers/postgres.js'
import { startRuntime } from '../../helpers/runtime.js'
import { attacks, CONFIG, KEY, writeTrail, type Run } from './audit-trail-attacks.js'

const runtime = await startRuntime(t)

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
