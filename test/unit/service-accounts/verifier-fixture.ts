import { randomUUID } from 'node:crypto'
import { Registry } from 'prom-client'
import type { Credential } from '../../../src/auth/credential.js'
import { inboundRequest } from '../../helpers/inbound.js'
import type { InboundRequest } from '../../../src/inbound/inbound-request.js'
import type { Config } from '../../../src/config/schema.js'
import { serviceAccountsSchema } from '../../../src/config/sections/service-accounts.js'
import { createLogger } from '../../../src/logger.js'
import type { Clock } from '../../../src/clock.js'
import { createServiceAccountMetrics } from '../../../src/service-accounts/metrics.js'
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
  /** Mints a token and stores its account (active, expiring in 90 days unless overridden). */
  readonly mint: (
    overrides?: Partial<NewServiceAccount>,
  ) => Promise<{ token: string; record: ServiceAccountRecord }>
  readonly verify: (
    token: string,
    clientAddress?: string,
  ) => ReturnType<ServiceAccountVerifier['verify']>
}

export function verifierFixture(config: Partial<Config['service_accounts']> = {}): VerifierFixture {
  const store = new MemoryServiceAccountStore()
  const clock = new FakeClock()
  const logs = new LogCapture()
  const registry = new Registry()
  const verifier = new ServiceAccountVerifier({
    store,
    config: { ...serviceAccountsSchema.parse({}), ...config },
    logger: createLogger({ level: 'debug', destination: logs }),
    metrics: createServiceAccountMetrics(registry),
    clock,
  })
  return {
    store,
    clock,
    logs,
    registry,
    verifier,
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
    verify: (token, clientAddress = '198.51.100.1') =>
      verifier.verify(bearer(token), inbound(clientAddress)),
  }
}

export function bearer(token: string): Credential {
  return { token, source: 'header' }
}

export function inbound(clientAddress: string): InboundRequest {
  return inboundRequest({ clientAddress })
}

/** What a verification threw, for assertions on code, reason and headers. */
export async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => new Error('expected a failure'),
    (error: unknown) => error,
  )
}
