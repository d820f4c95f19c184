import { randomUUID } from 'node:crypto'
import { Registry } from 'prom-client'
import type { Credential } from '../../../src/auth/credential.js'
import { inboundRequest } from '../../helpers/inbound.js'
import type { InboundRequest } from '../../../src/inbound/inbound-request.js'
import { GatewayError } from '../../../src/errors.js'
import type { Config } from '../../../src/config/schema.js'
import { serviceAccountsSchema } from '../../../src/config/sections/service-accounts.js'
import { createLogger } from '../../../src/logger.js'
import type { Clock } from '../../../src/clock.js'
import { auditSchema } from '../../../src/config/sections/audit.js'
import { AuditQueue } from '../../../src/service-accounts/audit-queue.js'
import { CredentialAudit } from '../../../src/service-accounts/credential-audit.js'
import {
  createAuditMetrics,
  createServiceAccountMetrics,
  RefusedTokenCounter,
} from '../../../src/service-accounts/metrics.js'
import { ServiceAccountVerifier } from '../../../src/service-accounts/service-account-verifier.js'
import type {
  NewServiceAccount,
  ServiceAccountRecord,
} from '../../../src/service-accounts/store.js'
import { mintToken } from '../../../src/service-accounts/token-format.js'
import { LogCapture } from '../../helpers/log-capture.js'
import { MemoryServiceAccountStore } from '../../helpers/memory-store.js'

/** Wall and monotonic time that move only when told; they can move separately. */
export class FakeClock implements Clock {
  wallMs = 1_700_000_000_000
  monotonicMs = 5_000

  now(): number {
    return this.wallMs
  }

  monotonic(): number {
    return this.monotonicMs
  }

  advance(ms: number): void {
    this.wallMs += ms
    this.monotonicMs += ms
  }

  get seconds(): number {
    return Math.floor(this.wallMs / 1000)
  }
}

export interface VerifierFixture {
  readonly store: MemoryServiceAccountStore
  readonly clock: FakeClock
  readonly logs: LogCapture
  readonly registry: Registry
  readonly verifier: ServiceAccountVerifier
  /** The audit queue, when the fixture records audit events. */
  readonly queue: AuditQueue | undefined
  /** Mints a token and stores its account (active, expiring in 90 days unless overridden). */
  readonly mint: (
    overrides?: Partial<NewServiceAccount>,
  ) => Promise<{ token: string; record: ServiceAccountRecord }>
  readonly verify: (
    token: string,
    clientAddress?: string,
    userAgent?: string,
  ) => Promise<Awaited<ReturnType<ServiceAccountVerifier['verify']>>>
}

/** A verifier on a memory store and a fake clock; with `audit`, recording audit events too. */
export function verifierFixture(
  config: Partial<Config['service_accounts']> = {},
  audit?: Partial<Config['audit']>,
): VerifierFixture {
  const store = new MemoryServiceAccountStore()
  const clock = new FakeClock()
  const logs = new LogCapture()
  const registry = new Registry()
  const logger = createLogger({ level: 'debug', destination: logs })
  const settings = { ...serviceAccountsSchema.parse({}), ...config }
  let queue: AuditQueue | undefined
  let credentialAudit: CredentialAudit | undefined
  if (audit !== undefined) {
    const auditSettings = { ...auditSchema.parse({}), ...audit }
    const auditMetrics = createAuditMetrics(registry, () => queue?.depth ?? 0)
    queue = new AuditQueue({
      store,
      maxEvents: 1_000,
      batchSize: 100,
      logger,
      metrics: auditMetrics,
    })
    credentialAudit = new CredentialAudit({
      queue,
      clock,
      audit: auditSettings,
      throttle: settings,
      refusedTokens: new RefusedTokenCounter(auditMetrics.refusedTokens),
    })
  }
  const verifier = new ServiceAccountVerifier({
    store,
    config: settings,
    logger,
    metrics: createServiceAccountMetrics(registry),
    clock,
    audit: credentialAudit,
  })
  return {
    store,
    clock,
    logs,
    registry,
    verifier,
    queue,
    mint: async (overrides = {}) => {
      const { token, hash, prefix } = mintToken()
      const record = await store.create({
        id: randomUUID(),
        name: `bot-${randomUUID().slice(0, 6)}`,
        userId: 'alice',
        tokenHash: hash,
        tokenPrefix: prefix,
        scopes: ['agents:run', 'config:read'],
        createdAt: clock.seconds,
        expiresAt: clock.seconds + 90 * 86_400,
        createdBy: 'alice',
        ...overrides,
      })
      return { token, record }
    },
    // A promise either way: the verifier answers a cached token, and a refusal, at once.
    verify: async (token, clientAddress = '198.51.100.1', userAgent = 'python-httpx/0.27') =>
      verifier.verify(
        bearer(token),
        inboundRequest({ clientAddress, rawHeaders: ['User-Agent', userAgent] }),
      ),
  }
}

export function bearer(token: string): Credential {
  return { token, source: 'header' }
}

export function inbound(clientAddress: string): InboundRequest {
  return inboundRequest({ clientAddress })
}

/** The refusal a verification made (a value, or thrown), for assertions on code, reason and headers. */
export async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    (result) => (result instanceof GatewayError ? result : new Error('expected a failure')),
    (error: unknown) => error,
  )
}
