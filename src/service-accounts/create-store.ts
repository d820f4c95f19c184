import type { Config } from '../config/schema.js'
import type { Logger } from '../logger.js'
import type { ServiceAccountMetrics } from './metrics.js'
import { PgSqlClient } from './pg-client.js'
import { PgliteSqlClient } from './pglite-client.js'
import { SqlServiceAccountStore } from './sql-store.js'
import type { ServiceAccountStore } from './store.js'

/**
 * PostgreSQL when `database.url` is set, otherwise the embedded PGlite in `database.data_dir`.
 * The caller runs `migrate()` before use and `close()` at shutdown.
 */
export async function createServiceAccountStore(
  config: Config['database'],
  logger: Logger,
  metrics?: ServiceAccountMetrics,
): Promise<ServiceAccountStore> {
  const url = config.url
  const client =
    url === null
      ? await PgliteSqlClient.open(config.data_dir)
      : new PgSqlClient({ ...config, url }, logger)
  if (url === null)
    logger.info({ data_dir: config.data_dir }, 'service accounts in embedded PGlite')
  return new SqlServiceAccountStore(client, { logger, metrics })
}
