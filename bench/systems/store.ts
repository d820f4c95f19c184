import { randomUUID } from 'node:crypto'
import { createLogger } from '../../src/logger.js'
import { runMigrations } from '../../src/service-accounts/migrate.js'
import { PgSqlClient } from '../../src/service-accounts/pg-client.js'
import { PgliteSqlClient } from '../../src/service-accounts/pglite-client.js'
import type { SqlClient } from '../../src/service-accounts/sql-client.js'
import { mintToken } from '../../src/service-accounts/token-format.js'

/** Where a gateway keeps its service accounts. */
export type StoreTarget =
  | { readonly kind: 'embedded'; readonly dataDir: string }
  | { readonly kind: 'postgres'; readonly url: string }

/** A minted account: its id (for revocation) and its plaintext token. */
export interface SeededAccount {
  readonly id: string
  readonly token: string
}

const COLUMNS = 9
const BATCH = 500

/** Opens the store directly (the gateway must not hold an embedded one) and migrates it. */
export async function openStore(target: StoreTarget): Promise<SqlClient> {
  const client =
    target.kind === 'embedded'
      ? await PgliteSqlClient.open(target.dataDir)
      : new PgSqlClient(
          {
            url: target.url,
            data_dir: 'unused',
            pool_max: 2,
            connect_timeout_ms: 10_000,
            query_timeout_ms: 120_000,
          },
          createLogger({ level: 'warn' }),
        )
  await runMigrations(client)
  return client
}

/**
 * Inserts `count` active accounts with freshly minted tokens (the store keeps only their SHA-256,
 * computed by the gateway's own token-format functions), in multi-row batches.
 */
export async function seedAccounts(
  client: SqlClient,
  count: number,
  options: { namePrefix: string; scopes: readonly string[] },
): Promise<SeededAccount[]> {
  const now = Math.floor(Date.now() / 1000)
  const seeded: SeededAccount[] = []
  for (let first = 0; first < count; first += BATCH) {
    const size = Math.min(BATCH, count - first)
    const values: string[] = []
    const params: unknown[] = []
    for (let n = 0; n < size; n++) {
      const minted = mintToken()
      const id = randomUUID()
      const base = n * COLUMNS
      values.push(
        `(${Array.from({ length: COLUMNS }, (_, column) => `$${base + column + 1}`).join(', ')})`,
      )
      params.push(
        id,
        `${options.namePrefix}-${first + n}`,
        null,
        minted.hash,
        minted.prefix,
        JSON.stringify(options.scopes),
        now,
        now + 86_400,
        'bench',
      )
      seeded.push({ id, token: minted.token })
    }
    await client.query(
      `INSERT INTO portcullis_service_accounts
         (id, name, user_id, token_hash, token_prefix, scopes, created_at, expires_at, created_by)
       VALUES ${values.join(', ')}`,
      params,
    )
  }
  return seeded
}

/** Opens, migrates, seeds and closes: the usual way to prepare a store before a gateway starts. */
export async function prepareStore(
  target: StoreTarget,
  count: number,
  namePrefix: string,
): Promise<SeededAccount[]> {
  const client = await openStore(target)
  try {
    return await seedAccounts(client, count, { namePrefix, scopes: BENCH_SCOPES })
  } finally {
    await client.close()
  }
}

/** What every benchmark token may do: read the agent the authenticated scenarios request. */
export const BENCH_SCOPES = ['agents:read'] as const
