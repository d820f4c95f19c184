import type { Registry } from 'prom-client'
import type { Config } from '../config/schema.js'
import type { Logger } from '../logger.js'
import { createServiceAccountStore, explainStoreStartFailure } from './create-store.js'
import { createServiceAccountMetrics } from './metrics.js'
import type { ResourceOwners } from './resource-owners.js'
import { RevocationHub } from './revocation-hub.js'
import { ServiceAccountVerifier } from './service-account-verifier.js'
import type { ServiceAccountStore } from './store.js'

/** The running service-account subsystem: its store (migrated), revocations and verifier. */
export interface ServiceAccounts {
  readonly store: ServiceAccountStore
  /** The owners of upstream rows the gateway records (OWN-1), in the same database. */
  readonly owners: ResourceOwners
  readonly verifier: ServiceAccountVerifier
  /** Every revocation, this replica's and the others', for whatever must act on it. */
  readonly revocations: RevocationHub
  stop(): Promise<void>
}

/** Opens the store, applies migrations and subscribes the verifier's cache to every revocation. */
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
    const revocations = new RevocationHub({ store, logger })
    revocations.subscribe(verifier)
    await revocations.start()
    return {
      store,
      owners: store,
      verifier,
      revocations,
      async stop() {
        revocations.stop()
        await verifier.settled()
        await store.close()
      },
    }
  } catch (error) {
    await store.close().catch(() => undefined)
    throw explainStoreStartFailure(config.database, error)
  }
}
