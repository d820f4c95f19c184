/** `portcullis migrate` on PostgreSQL and on an empty embedded store. */
import { existsSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { createLogger } from '../../../src/logger.js'
import { runMigrations } from '../../../src/service-accounts/migrate.js'
import { migration001 } from '../../../src/service-accounts/migrations/001-service-accounts.js'
import { MIGRATIONS } from '../../../src/service-accounts/migrations/index.js'
import { PgSqlClient } from '../../../src/service-accounts/pg-client.js'
import { portcullis } from '../../helpers/cli.js'
import { postgresSkipReason, startPostgres } from '../../helpers/postgres.js'

void t.test('migrate applies the schema once', { skip: postgresSkipReason() }, async (t) => {
  const postgres = await startPostgres(t)
  const env = { DATABASE_URL: postgres.url, OS_SECURITY_KEY: 'k-0123456789abcdef0123456789abcdef' }
  const first = await portcullis(t, ['migrate', '--config', 'config/portcullis.yaml'], env)
  t.equal(first.code, 0, first.stderr)
  t.equal(first.stdout, `Applied: ${MIGRATIONS.map((migration) => migration.version).join(', ')}`)
  const second = await portcullis(t, ['migrate', '--config', 'config/portcullis.yaml'], env)
  t.equal(second.code, 0, second.stderr)
  t.equal(second.stdout, 'Schema is up to date.')

  const older = await postgres.createDatabase()
  const client = new PgSqlClient(
    {
      url: older,
      data_dir: 'unused',
      pool_max: 1,
      connect_timeout_ms: 5_000,
      query_timeout_ms: 5_000,
    },
    createLogger({ level: 'silent' }),
  )
  await runMigrations(client, [migration001])
  await client.close()
  const upgrade = await portcullis(t, ['migrate', '--config', 'config/portcullis.yaml'], {
    ...env,
    DATABASE_URL: older,
  })
  t.equal(upgrade.code, 0, upgrade.stderr)
  t.equal(
    upgrade.stdout,
    `Applied: ${MIGRATIONS.slice(1)
      .map((migration) => migration.version)
      .join(', ')}`,
    'a database at 001 gets the owner table and the audit trail',
  )
})

void t.test('migrate initialises an empty embedded store, schema included', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'portcullis-migrate-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const env = {
    PORTCULLIS_DATA_DIR: join(dir, 'db'),
    OS_SECURITY_KEY: 'k-0123456789abcdef0123456789abcdef',
  }
  const first = await portcullis(t, ['migrate', '--config', 'config/portcullis.yaml'], env)
  t.equal(first.code, 0, first.stderr)
  t.equal(first.stdout, 'Schema is up to date.', 'the shipped template holds every migration')
  t.ok(existsSync(join(dir, 'db', 'PG_VERSION')), 'the data directory was initialised')
})
