import { MIGRATIONS, type Migration } from './migrations/index.js'
import type { SqlClient } from './sql-client.js'

/** Arbitrary, fixed: every Portcullis replica takes this advisory lock to migrate. */
export const MIGRATION_LOCK_KEY = '7362915044120011'

const CREATE_MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS portcullis_schema_migrations (
  version text PRIMARY KEY,
  name text NOT NULL,
  applied_at timestamptz NOT NULL DEFAULT now()
)`

/**
 * Applies the missing migrations in one transaction. The transaction-scoped advisory lock comes
 * first, so replicas starting together queue here and the later ones find nothing left to do.
 */
export async function runMigrations(
  client: SqlClient,
  migrations: readonly Migration[] = MIGRATIONS,
): Promise<string[]> {
  return client.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1::bigint)', [MIGRATION_LOCK_KEY])
    await tx.query(CREATE_MIGRATIONS_TABLE)
    const rows = await tx.query('SELECT version FROM portcullis_schema_migrations')
    const done = new Set(rows.map((row) => String(row.version)))
    const applied: string[] = []
    for (const migration of migrations) {
      if (done.has(migration.version)) continue
      for (const statement of migration.statements) await tx.query(statement)
      await tx.query('INSERT INTO portcullis_schema_migrations (version, name) VALUES ($1, $2)', [
        migration.version,
        migration.name,
      ])
      applied.push(migration.version)
    }
    return applied
  })
}
