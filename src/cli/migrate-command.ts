import type { Command } from 'commander'
import { loadConfig } from '../config/load.js'
import { createLogger } from '../logger.js'
import {
  createServiceAccountStore,
  explainStoreStartFailure,
} from '../service-accounts/create-store.js'
import { DEFAULT_CONFIG_PATH } from './defaults.js'
import { showStackTraces } from './failure.js'

/** `portcullis migrate`: apply the store's migrations and exit (for release jobs and init containers). */
export function registerMigrateCommand(program: Command): void {
  program
    .command('migrate')
    .description("Apply the service-account store's schema migrations and exit")
    .option('-c, --config <file>', 'config file', DEFAULT_CONFIG_PATH)
    .action(async (options: { config: string }) => {
      const config = loadConfig(options.config, { env: process.env })
      showStackTraces(config.logging.level)
      const logger = createLogger({ level: 'warn' })
      const store = await createServiceAccountStore(config.database, logger)
      try {
        const { applied } = await store.migrate()
        process.stdout.write(
          applied.length === 0 ? 'Schema is up to date.\n' : `Applied: ${applied.join(', ')}\n`,
        )
      } catch (error) {
        throw explainStoreStartFailure(config.database, error)
      } finally {
        await store.close()
      }
    })
}
