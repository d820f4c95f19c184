import { resolve } from 'node:path'
import type { Config } from '../config/schema.js'
import type { Logger } from '../logger.js'
import { describeSystemError, EXIT_CODES, settingName, StartupError } from '../startup-error.js'
import { DataDirInUseError, DataDirLock } from './data-dir-lock.js'
import { describeHolder } from './lock-holder.js'
import type { StoreAuditOptions } from './audit-event.js'
import type { ServiceAccountMetrics } from './metrics.js'
import type { PgliteSqlClient } from './pglite-client.js'
import type { ResourceOwners } from './resource-owners.js'
import { SqlServiceAccountStore } from './sql-store.js'
import type { ServiceAccountStore } from './store.js'
import { StoreUnavailableError } from './store-errors.js'

const DATA_DIR_SETTING = settingName('database.data_dir', 'PORTCULLIS_DATA_DIR')
const URL_SETTING = settingName('database.url', 'DATABASE_URL')

/**
 * The gateway's store (service accounts and recorded owners): PostgreSQL when `database.url` is
 * set, otherwise the embedded PGlite in `database.data_dir`.
 * The caller runs `migrate()` before use and `close()` at shutdown. A data directory that cannot
 * be used is a StartupError naming the setting.
 *
 * Only the driver in use is loaded: each costs the process memory for as long as it runs.
 */
export async function createServiceAccountStore(
  config: Config['database'],
  logger: Logger,
  metrics?: ServiceAccountMetrics,
  audit?: StoreAuditOptions,
): Promise<ServiceAccountStore & ResourceOwners> {
  const url = config.url
  const client =
    url === null
      ? await openEmbedded(config.data_dir, logger)
      : new (await import('./pg-client.js')).PgSqlClient({ ...config, url }, logger)
  return new SqlServiceAccountStore(client, { logger, metrics, audit })
}

async function openEmbedded(dataDir: string, logger: Logger): Promise<PgliteSqlClient> {
  const { PgliteSqlClient } = await import('./pglite-client.js')
  // Exits without closing the store: closing writes a checkpoint into files another process may
  // now own.
  const stop = (problem: string): void => {
    logger.fatal(
      { data_dir: dataDir },
      `lost the embedded store's lock (${problem}); stopping so that two processes never write one store`,
    )
    logger.flush(() => process.exit(EXIT_CODES.store.code))
  }
  let client: PgliteSqlClient
  try {
    client = await PgliteSqlClient.open(dataDir, { onLockLost: stop })
  } catch (error) {
    throw dataDirUnusable(dataDir, error)
  }
  const { startup } = client
  const takenOver = startup.lockTakenOver
  if (takenOver !== undefined) {
    logger.warn(
      {
        data_dir: startup.dataDir,
        previous_holder: takenOver.holder === undefined ? null : describeHolder(takenOver.holder),
        reason: takenOver.reason,
      },
      "took over the embedded store's lock from a process that is gone",
    )
  }
  if (startup.repairedBeforeOpen.repaired > 0) {
    logger.warn(
      {
        data_dir: startup.dataDir,
        repaired: startup.repairedBeforeOpen.repaired,
        writable_by_others: startup.repairedBeforeOpen.writableByOthers,
      },
      'the data directory gave its group or others access; made private (directories 0700, files 0600)',
    )
  }
  if (startup.initialisedFrom === 'initdb') {
    logger.warn(
      { data_dir: startup.dataDir, template: startup.templateFile },
      'no embedded-store template for the installed PGlite: initialised with initdb, which needed about 800 MB more memory',
    )
  }
  if (startup.initialisedFrom !== null) {
    logger.info(
      {
        data_dir: startup.dataDir,
        from: startup.initialisedFrom,
        peak_rss_bytes: startup.initialisePeakRssBytes,
        gateway_rss_bytes: startup.parentRssBytes,
      },
      'embedded store initialised (files private to this user)',
    )
  }
  logger.info({ data_dir: startup.dataDir }, 'service accounts in embedded PGlite')
  return client
}

/**
 * Refuses (the StartupError serve would give) an embedded store whose data directory another live
 * process holds, without taking it; nothing to check for PostgreSQL.
 */
export async function checkStoreFree(
  config: Pick<Config['database'], 'url' | 'data_dir'>,
): Promise<void> {
  if (config.url !== null) return
  try {
    await DataDirLock.check(resolve(config.data_dir))
  } catch (error) {
    throw dataDirUnusable(config.data_dir, error)
  }
}

function dataDirUnusable(dataDir: string, error: unknown): StartupError {
  const reason =
    error instanceof DataDirInUseError
      ? `${error.message}; one process per data directory: stop that one, or give this one another directory`
      : describeSystemError(error)
  return new StartupError(
    'store',
    `cannot use the embedded store's data directory ${dataDir} (${DATA_DIR_SETTING}): ${reason}`,
    { cause: error },
  )
}

/**
 * A store that failed while starting (unreachable, refused the credentials, a migration failed)
 * as a StartupError naming the database setting.
 */
export function explainStoreStartFailure(config: Config['database'], error: unknown): StartupError {
  if (error instanceof StartupError) return error
  const what =
    config.url === null
      ? `the embedded store in ${config.data_dir} (${DATA_DIR_SETTING})`
      : `the database (${URL_SETTING})`
  const reason =
    error instanceof StoreUnavailableError || !(error instanceof Error)
      ? describeSystemError(error)
      : error.message
  return new StartupError('store', `cannot start ${what}: ${reason}`, { cause: error })
}
