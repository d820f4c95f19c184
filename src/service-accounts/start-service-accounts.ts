import type { Registry } from 'prom-client'
import type { Config } from '../config/schema.js'
import type { Logger } from '../logger.js'
import { createServiceAccountStore, explainStoreStartFailure } from './create-store.js'
import { createServiceAccountMetrics } from './metrics.js'
import { ServiceAccountVerifier } from './service-account-verifier.js'
import type { ServiceAccountStore } from './store.js'

/** The running service-account subsystem: its store (migrated) and its verifier (subscribed). */
export interface ServiceAccounts {
  readonly store: ServiceAccountStore
  readonly verifier: ServiceAccountVerifier
  stop(): Promise<void>
}

/** Opens the store, applies migrations and subscribes the verifier to revocations of every replica. */
export async function startServiceAccounts(
  config: Config,
  logger: Logger,
  registry: Registry,
): Promise<ServiceAccounts> {
  const metrics = createServiceAccountMetrics(registry)
  const store = await createServiceAccountStore(config.database, logger, metrics)
  try {
    const { applied } = await store.migrate()
    if (applied.length > 0) logger.info({ migrations: applied }, 'service-account store migrated')
    const verifier = new ServiceAccountVerifier({
      store,
      config: config.service_accounts,
      logger,
      metrics,
    })
    await verifier.start()
    return {
      store,
      verifier,
      async stop() {
        await verifier.stop()
        await store.close()
      },
    }
  } catch (error) {
    await store.close().catch(() => undefined)
    throw explainStoreStartFailure(config.database, error)
  }
}
