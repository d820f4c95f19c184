import type { Registry } from 'prom-client'
import { systemClock, type Clock } from '../clock.js'
import type { Config } from '../config/schema.js'
import type { Logger } from '../logger.js'
import { AuditLog } from './audit-log.js'
import { AuditQueue } from './audit-queue.js'
import { systemTimers, type Timers } from '../timers.js'
import { AuditRetention } from './audit-retention.js'
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
  /** The time the subsystem decides with: expiry, stored times, retention. */
  readonly clock: Clock
  stop(): Promise<void>
}

/** Time, injected so that tests move it (expiry, retention) without waiting. */
export interface ServiceAccountsTime {
  readonly clock?: Clock | undefined
  readonly timers?: Timers | undefined
}

/**
 * Opens the store, applies migrations, subscribes the verifier's cache to every revocation and
 * starts the audit trail's retention.
 */
export async function startServiceAccounts(
  config: Config,
  logger: Logger,
  registry: Registry,
  time: ServiceAccountsTime = {},
): Promise<ServiceAccounts> {
  const { audit } = config
  const clock = time.clock ?? systemClock
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
        clock,
        audit,
        throttle: config.service_accounts,
        refusedTokens: new RefusedTokenCounter(auditMetrics.refusedTokens),
      }),
      addressesPerAccount: audit.addresses_per_account,
      clock,
    })
    const revocations = new RevocationHub({ store, logger, clock })
    revocations.subscribe(verifier)
    await revocations.start()
    queue.start(audit.flush_interval_ms)
    const retention = new AuditRetention({
      store,
      retentionDays: config.audit.retention_days,
      batchSize: config.audit.prune_batch_size,
      clock,
      timers: time.timers ?? systemTimers,
      logger,
    })
    retention.start()
    return {
      store,
      owners: store,
      verifier,
      revocations,
      auditQueue: queue,
      clock,
      async stop() {
        revocations.stop()
        await Promise.all([verifier.settled(), retention.stop()])
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
