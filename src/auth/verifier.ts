import type { Credential } from './credential.js'
import type { GatewayError } from '../errors.js'
import type { InboundRequest } from '../inbound/inbound-request.js'
import type { Principal } from '../principal.js'

/** Returned by a verifier for a credential of another kind. */
export const NOT_RESPONSIBLE: unique symbol = Symbol('not-responsible')

/** What a verifier made of a credential: a principal, its refusal, or not its kind. */
export type VerifierResult = Principal | GatewayError | typeof NOT_RESPONSIBLE

/** A verifier's answer: at once when nothing had to be waited for (a cached verification). */
export type VerifierAnswer = VerifierResult | Promise<VerifierResult>

/**
 * One credential kind. `verify` returns NOT_RESPONSIBLE when the credential is not its kind
 * (decided by shape), a Principal when it verifies, and a GatewayError when it is its kind but
 * fails: a failure never falls through to another verifier. Refusals are values because a flood
 * of bad credentials makes them on every request; a verifier that throws one instead (or whose
 * promise rejects) is refused the same way.
 */
export interface Verifier {
  readonly kind: 'jwt' | 'service_account' | 'scheduler' | 'security_key'
  verify(credential: Credential, request: InboundRequest): VerifierAnswer
}
