/** `portcullis migrate` on PostgreSQL and on an empty embedded store. */
import { existsSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { portcullis } from '../../helpers/cli.js'
import { postgresSkipReason, startPostgres } from '../../helpers/postgres.js'

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
