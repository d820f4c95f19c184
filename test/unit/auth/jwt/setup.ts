import { JwtVerifier, type JwtVerifierDependencies } from '../../../../src/auth/jwt/jwt-verifier.js'
import type { Principal } from '../../../../src/principal.js'
import { NOT_RESPONSIBLE } from '../../../../src/auth/verifier.js'
import { GatewayError } from '../../../../src/errors.js'
import { Metrics } from '../../../../src/metrics.js'
import { fixtures, signJwt } from '../../../helpers/jwt.js'
import type { LogCapture } from '../../../helpers/log-capture.js'
import { FakeClock } from '../../../helpers/fake-time.js'
import { authConfig, bearer, testLogger } from '../helpers.js'

export const K = fixtures.hmacSecret()

/** Checklist fixture J: HS256 with key K, AgentOS id os-1, authorization on. */
export const J = {
  verification_keys: [K],
  algorithm: 'HS256',
  service_id: 'os-1',
  authorization: true,
}

/** An HS256 token (or `alg`) signed with `key`, K by default. */
export const hs = (claims: Record<string, unknown>, key: string = K, alg = 'HS256') =>
  signJwt(claims, { alg, key })

/** RS256 with the fixture RSA public key as the only static key. */
export const RS = { verification_keys: [fixtures.rsaPublicPem()], algorithm: 'RS256' }

/** An RS256 token signed with the fixture RSA key (the one RS trusts). */
export const legit = (claims: Record<string, unknown> = { sub: 'alice' }, header = {}) =>
  signJwt(claims, { alg: 'RS256', key: fixtures.rsaPrivate(), header })

export interface TestVerifier {
  readonly verifier: JwtVerifier
  readonly clock: FakeClock
  readonly logs: LogCapture
  readonly metrics: Metrics
  /** Verifies a bearer token and insists on a principal. */
  readonly principal: (token: string) => Promise<Principal>
}

export async function createVerifier(
  t: { teardown(fn: () => unknown): void },
  input: Record<string, unknown>,
  deps: Partial<JwtVerifierDependencies> = {},
): Promise<TestVerifier> {
  const clock = new FakeClock()
  const { logger, logs } = testLogger()
  const metrics = new Metrics({ collectProcessMetrics: false })
  const verifier = await JwtVerifier.create(authConfig(input), { logger, metrics, clock, ...deps })
  t.teardown(() => verifier.close())
  return {
    verifier,
    clock,
    logs,
    metrics,
    principal: principalOf(verifier),
  }
}

/** Verifies a bearer token with `verifier` and insists on a principal. */
export function principalOf(verifier: JwtVerifier): (token: string) => Promise<Principal> {
  return async (token) => {
    const result = await verifier.verify(bearer(token))
    if (result === NOT_RESPONSIBLE) throw new Error('expected a principal, got NOT_RESPONSIBLE')
    // A refusal is a value; these tests read it as the rejection it stands for.
    if (result instanceof GatewayError) throw result
    return result
  }
}
