import { GatewayError } from '../errors.js'
import type { InboundRequest } from '../inbound/inbound-request.js'
import type { Principal } from '../principal.js'
import { isServiceToken, type Credential } from './credential.js'
import { NOT_RESPONSIBLE, type Verifier, type VerifierAnswer } from './verifier.js'

const SERVICE_ACCOUNTS_DISABLED = 'Service accounts are not enabled on this AgentOS instance'

/** Claims `svc_pat_` tokens while service accounts are off, and refuses them (503). */
export class ServiceAccountsOff implements Verifier {
  readonly kind = 'service_account'

  verify(credential: Credential): typeof NOT_RESPONSIBLE {
    if (!isServiceToken(credential.token)) return NOT_RESPONSIBLE
    throw new GatewayError('SERVICE_ACCOUNTS_DISABLED', SERVICE_ACCOUNTS_DISABLED, {
      reason: 'service_account.disabled',
    })
  }
}

/** What the chain made of a credential: the claiming verifier's principal, or no claim. */
export type ChainOutcome =
  | { readonly claimedBy: Verifier['kind']; readonly principal: Principal }
  | { readonly claimedBy: undefined }

/**
 * The verifiers of one config in AgentOS's dispatch order (AUTH-3), built once. Each claims the
 * credentials of its shape; one that is not responsible passes the credential on, and a failure
 * (a thrown GatewayError) stops the chain: it never falls through to the next verifier.
 */
export class VerifierChain {
  readonly #verifiers: readonly Verifier[]

  constructor(verifiers: readonly Verifier[]) {
    this.#verifiers = Object.freeze([...verifiers])
  }

  /** The verifiers' kinds, in the order they are asked. */
  get kinds(): readonly Verifier['kind'][] {
    return this.#verifiers.map((verifier) => verifier.kind)
  }

  /**
   * Asks each verifier in order; answers at once when no verifier had to wait (a cached token),
   * else with a promise. `onClaim` hears which verifier claimed the credential before its answer
   * is known, so that a failure is traced to it too.
   */
  verify(
    credential: Credential,
    request: InboundRequest,
    onClaim?: (kind: Verifier['kind']) => void,
  ): ChainOutcome | Promise<ChainOutcome> {
    return this.#askFrom(0, credential, request, onClaim)
  }

  #askFrom(
    first: number,
    credential: Credential,
    request: InboundRequest,
    onClaim: ((kind: Verifier['kind']) => void) | undefined,
  ): ChainOutcome | Promise<ChainOutcome> {
    const verifiers = this.#verifiers
    for (let index = first; index < verifiers.length; index++) {
      const verifier = verifiers[index] as Verifier
      let answer: VerifierAnswer
      try {
        answer = verifier.verify(credential, request)
      } catch (error) {
        onClaim?.(verifier.kind)
        throw error
      }
      if (answer instanceof Promise) {
        return answer.then(
          (principal) =>
            principal === NOT_RESPONSIBLE
              ? this.#askFrom(index + 1, credential, request, onClaim)
              : claimed(verifier.kind, principal, onClaim),
          (error: unknown) => {
            onClaim?.(verifier.kind)
            throw error
          },
        )
      }
      if (answer !== NOT_RESPONSIBLE) return claimed(verifier.kind, answer, onClaim)
    }
    return NO_CLAIM
  }
}

const NO_CLAIM: ChainOutcome = Object.freeze({ claimedBy: undefined })

function claimed(
  kind: Verifier['kind'],
  principal: Principal,
  onClaim: ((kind: Verifier['kind']) => void) | undefined,
): ChainOutcome {
  onClaim?.(kind)
  return { claimedBy: kind, principal }
}
