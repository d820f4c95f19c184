import type { Registry } from 'prom-client'
import type { Config } from '../config/schema.js'
import { systemClock } from '../clock.js'
import type { Logger } from '../logger.js'
import { AuditLog } from './audit-log.js'
import { AuditQueue } from './audit-queue.js'
import { createServiceAccountStore, explainStoreStartFailure } from './create-store.js'
import { CredentialAudit } from './credential-audit.js'
import { createAuditMetrics, createServiceAccountMetrics, RefusedTokenCounter } from './metrics.js'
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
  /** The audit events no change carries, on their way to the store. */
  readonly auditQueue: AuditQueue
  stop(): Promise<void>
}

/** Opens the store, applies migrations and subscribes the verifier's cache to every revocation. */
export async function startServiceAccounts(
  config: Config,
  logger: Logger,
  registry: Registry,
): Promise<ServiceAccounts> {
  const { audit } = config
  const metrics = createServiceAccountMetrics(registry)
  let auditQueue: AuditQueue | undefined
  const auditMetrics = createAuditMetrics(registry, () => auditQueue?.depth ?? 0)
  const store = await createServiceAccountStore(config.database, logger, metrics, {
    rotationWindowSeconds: audit.rotation_window_seconds,
    addressesPerAccount: audit.addresses_per_account,
    appended: new AuditLog(logger, auditMetrics).appended,
  })
  try {
    const { applied } = await store.migrate()
    if (applied.length > 0) logger.info({ migrations: applied }, 'service-account store migrated')
    const queue = new AuditQueue({
      store,
      maxEvents: audit.queue_max_events,
      batchSize: audit.batch_size,
      logger,
      metrics: auditMetrics,
    })
    auditQueue = queue
    const verifier = new ServiceAccountVerifier({
      store,
      config: config.service_accounts,
      logger,
      metrics,
      audit: new CredentialAudit({
        queue,
        clock: systemClock,
        audit,
        throttle: config.service_accounts,
        refusedTokens: new RefusedTokenCounter(auditMetrics.refusedTokens),
      }),
      addressesPerAccount: audit.addresses_per_account,
    })
    const revocations = new RevocationHub({ store, logger })
    revocations.subscribe(verifier)
    await revocations.start()
    queue.start(audit.flush_interval_ms)
    return {
      store,
      owners: store,
      verifier,
      revocations,
      auditQueue: queue,
      async stop() {
        revocations.stop()
        await verifier.settled()
        // Every request has finished: what they queued is written before the store closes.
        await queue.close()
        await store.close()
      },
    }
  } catch (error) {
    await store.close().catch(() => undefined)
    throw explainStoreStartFailure(config.database, error)
  }
}
