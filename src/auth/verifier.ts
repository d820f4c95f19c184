import type { Credential } from './credential.js'
import type { InboundRequest } from '../inbound/inbound-request.js'
import type { Principal } from '../principal.js'

/** Returned by a verifier for a credential of another kind; a failure is thrown, never this. */
export const NOT_RESPONSIBLE: unique symbol = Symbol('not-responsible')

/** A verifier's answer: at once when nothing had to be waited for (a cached verification). */
export type VerifierAnswer =
  Principal | typeof NOT_RESPONSIBLE | Promise<Principal | typeof NOT_RESPONSIBLE>

/**
 * One credential kind. `verify` returns NOT_RESPONSIBLE when the credential is not its kind
 * (decided by shape), a Principal when it verifies, and throws a GatewayError (or returns a
 * promise that rejects with one) when it is its kind but fails: a failure never falls through to
 * another verifier.
 */
export interface Verifier {
  readonly kind: 'jwt' | 'service_account' | 'scheduler' | 'security_key'
  verify(credential: Credential, request: InboundRequest): VerifierAnswer
}
