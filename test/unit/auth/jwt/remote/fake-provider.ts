import { JwtVerifier } from '../../../../../src/auth/jwt/jwt-verifier.js'
import { KeyFetchError } from '../../../../../src/auth/jwt/remote/fetch-errors.js'
import type {
  FetchedKeySet,
  KeySetFetcher,
  KeySetLocation,
} from '../../../../../src/auth/jwt/remote/key-set-fetcher.js'
import type { Principal } from '../../../../../src/principal.js'
import { Metrics } from '../../../../../src/metrics.js'
import { fixtures, publicJwk, signJwt } from '../../../../helpers/jwt.js'
import type { LogCapture } from '../../../../helpers/log-capture.js'
import { FakeClock, FakeTimers } from '../../../../helpers/fake-time.js'
import { authConfig, testLogger } from '../../helpers.js'
import { principalOf } from '../setup.js'

/** An identity provider in memory: serves a document, answers 304 to its ETag, fails on demand. */
export class FakeProvider implements KeySetFetcher {
  text = '{"keys":[]}'
  etag: string | undefined = undefined
  lifetimeSeconds: number | undefined = undefined
  failure: KeyFetchError | undefined
  /** While set, every fetch waits for it (to hold fetches open and pile requests up). */
  gate: Promise<void> | undefined
  readonly locations: KeySetLocation[] = []
  readonly etagsSent: (string | undefined)[] = []
  closed = false
  #version = 0

  get fetches(): number {
    return this.etagsSent.length
  }

  /** Publishes these JWKs as a new document with a new ETag. */
  publish(keys: readonly unknown[], lifetimeSeconds?: number): void {
    this.text = JSON.stringify({ keys })
    this.#version += 1
    this.etag = `"v${this.#version}"`
    this.lifetimeSeconds = lifetimeSeconds
  }

  /** Fails every fetch with this outcome until `recover()`. */
  fail(outcome: KeyFetchError['outcome'] = 'refused', message = 'connection refused'): void {
    this.failure = new KeyFetchError(outcome, `fake provider: ${message}`)
  }

  recover(): void {
    this.failure = undefined
  }

  async fetch(etag: string | undefined): Promise<FetchedKeySet> {
    this.etagsSent.push(etag)
    await this.gate
    if (this.failure !== undefined) throw this.failure
    if (etag !== undefined && etag === this.etag) {
      return { kind: 'not_modified', lifetimeSeconds: this.lifetimeSeconds }
    }
    return {
      kind: 'document',
      text: this.text,
      etag: this.etag,
      lifetimeSeconds: this.lifetimeSeconds,
    }
  }

  async close(): Promise<void> {
    this.closed = true
  }
}

export const JWK = {
  a: publicJwk(fixtures.rsaPublicPem(), { kid: 'a' }),
  b: publicJwk(fixtures.rsa2PublicPem(), { kid: 'b' }),
  /** The first RSA key again, under another kid. */
  c: publicJwk(fixtures.rsaPublicPem(), { kid: 'c' }),
}

const SIGNERS = { a: fixtures.rsaPrivate, b: fixtures.rsa2Private }

/** An RS256 token for `kid` ('b' signs with the second RSA key, any other kid with the first). */
export function tokenFor(kid: string, claims: Record<string, unknown> = {}): Promise<string> {
  const signer = SIGNERS[kid as keyof typeof SIGNERS] ?? fixtures.rsaPrivate
  return signJwt({ sub: `user-${kid}`, ...claims }, { alg: 'RS256', key: signer(), kid })
}

export interface RemoteSetup {
  readonly verifier: JwtVerifier
  readonly provider: FakeProvider
  readonly clock: FakeClock
  readonly timers: FakeTimers
  readonly logs: LogCapture
  readonly metrics: Metrics
  /** Verifies a bearer token and insists on a principal. */
  readonly principal: (token: string) => Promise<Principal>
  /** Creates another verifier (a reload) with the same provider, clock and timers. */
  readonly recreate: (input: Record<string, unknown>) => Promise<JwtVerifier>
}

/** A JWT verifier on a fake provider (publish keys before, or pass `before`). */
export async function remoteVerifier(
  t: { teardown(fn: () => unknown): void },
  input: Record<string, unknown>,
  before: (provider: FakeProvider) => void = (provider) => provider.publish([JWK.a]),
): Promise<RemoteSetup> {
  const clock = new FakeClock()
  const timers = new FakeTimers(clock)
  const provider = new FakeProvider()
  before(provider)
  const { logger, logs } = testLogger()
  const metrics = new Metrics({ collectProcessMetrics: false })
  const deps = {
    logger,
    metrics,
    clock,
    timers,
    remoteFetcher: (location: KeySetLocation) => {
      provider.locations.push(location)
      return provider
    },
  }
  const config = (extra: Record<string, unknown>) =>
    authConfig({ algorithm: 'RS256', jwks_url: 'https://idp.example/jwks.json', ...extra })
  const verifier = await JwtVerifier.create(config(input), deps)
  t.teardown(() => verifier.close())
  return {
    verifier,
    provider,
    clock,
    timers,
    logs,
    metrics,
    principal: principalOf(verifier),
    recreate: async (extra) => {
      const next = await JwtVerifier.create(config(extra), deps, verifier)
      t.teardown(() => next.close())
      return next
    },
  }
}

/** Log records whose message is `msg`. */
export function logged(logs: LogCapture, msg: string): Record<string, unknown>[] {
  return logs.records().filter((record) => record.msg === msg)
}
