import { cp, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createLogger } from '../../src/logger.js'
import { createServiceAccountStore } from '../../src/service-accounts/create-store.js'
import { runMigrations } from '../../src/service-accounts/migrate.js'
import {
  PgliteSqlClient,
  type EmbeddedStoreStartup,
} from '../../src/service-accounts/pglite-client.js'
import type { ResourceOwners } from '../../src/service-accounts/resource-owners.js'
import type { ServiceAccountStore } from '../../src/service-accounts/store.js'
import type { SqlContractDatabase } from '../contract/service-account-store.js'
import type { Teardown } from './gateway.js'
import { LogCapture } from './log-capture.js'

export interface EmbeddedContractDatabases {
  /** An initialised, never migrated data directory (by initdb, in nested missing parents). */
  readonly template: string
  /** How the template was opened: by initdb, for want of `missingTemplate`. */
  readonly startup: EmbeddedStoreStartup
  /** The template file given to that open, which does not exist. */
  readonly missingTemplate: string
  /** One empty database: a copy of the template. */
  database(): Promise<SqlContractDatabase>
}

/**
 * Embedded databases for the store contracts. A fresh PGlite directory takes seconds to
 * initialise; copying an initialised one takes little. The template is made by initdb, not from
 * the shipped (already migrated) template, so that the contract sees migrations apply; a template
 * file that does not exist is what makes the store fall back to initdb.
 */
export async function embeddedContractDatabases(t: Teardown): Promise<EmbeddedContractDatabases> {
  const root = await mkdtemp(join(tmpdir(), 'portcullis-pglite-'))
  t.teardown(() => rm(root, { recursive: true, force: true }))
  const template = join(root, 'nested', 'missing', 'template')
  const missingTemplate = join(root, 'no-such-template.tar.br')
  const initialised = await PgliteSqlClient.open(template, { template: missingTemplate })
  await initialised.close()
  const logger = createLogger({ level: 'warn', destination: new LogCapture() })
  let databases = 0
  return {
    template,
    startup: initialised.startup,
    missingTemplate,
    async database() {
      databases += 1
      const dataDir = join(root, `db-${databases}`)
      await cp(template, dataDir, { recursive: true })
      let store: Promise<ServiceAccountStore & ResourceOwners> | undefined
      // One PGlite per directory: the "second store" of the contract is the same instance.
      return {
        open: () =>
          (store ??= createServiceAccountStore(
            {
              url: null,
              data_dir: dataDir,
              pool_max: 1,
              connect_timeout_ms: 1_000,
              query_timeout_ms: 1_000,
            },
            logger,
          )),
        async migrateOnly(migrations) {
          const client = await PgliteSqlClient.open(dataDir)
          try {
            await runMigrations(client, migrations)
          } finally {
            await client.close()
          }
        },
      }
    },
  }
}
