import { GatewayError } from '../errors.js'
import type { InboundRequest } from '../inbound/inbound-request.js'
import type { Principal } from '../principal.js'
import { isServiceToken, type Credential } from './credential.js'
import { NOT_RESPONSIBLE, type Verifier, type VerifierResult } from './verifier.js'

const SERVICE_ACCOUNTS_DISABLED = 'Service accounts are not enabled on this AgentOS instance'

const SERVICE_ACCOUNTS_DISABLED_ERROR = new GatewayError(
  'SERVICE_ACCOUNTS_DISABLED',
  SERVICE_ACCOUNTS_DISABLED,
  { reason: 'service_account.disabled' },
)

/** Claims `svc_pat_` tokens while service accounts are off, and refuses them (503). */
export class ServiceAccountsOff implements Verifier {
  readonly kind = 'service_account'

  verify(credential: Credential): GatewayError | typeof NOT_RESPONSIBLE {
    return isServiceToken(credential.token) ? SERVICE_ACCOUNTS_DISABLED_ERROR : NOT_RESPONSIBLE
  }
}

/**
 * What the chain made of a credential: the claiming verifier's principal, its refusal (a
 * GatewayError, or whatever it threw), or no claim.
 */
export type ChainOutcome =
  | {
      readonly claimedBy: Verifier['kind']
      readonly principal: Principal
      readonly refusal?: never
    }
  | { readonly claimedBy: Verifier['kind']; readonly refusal: unknown; readonly principal?: never }
  | { readonly claimedBy: undefined; readonly principal?: never; readonly refusal?: never }

/**
 * The verifiers of one config in AgentOS's dispatch order (AUTH-3), built once. Each claims the
 * credentials of its shape; one that is not responsible passes the credential on, and a refusal
 * stops the chain: it never falls through to the next verifier.
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
   * Asks each verifier in order; answers at once when no verifier had to wait (a cached token, a
   * refusal made without a lookup), else with a promise. Never throws or rejects: a verifier's
   * failure, thrown or returned, is the outcome's refusal.
   */
  verify(credential: Credential, request: InboundRequest): ChainOutcome | Promise<ChainOutcome> {
    return this.#askFrom(0, credential, request)
  }

  #askFrom(
    first: number,
    credential: Credential,
    request: InboundRequest,
  ): ChainOutcome | Promise<ChainOutcome> {
    const verifiers = this.#verifiers
    for (let index = first; index < verifiers.length; index++) {
      const verifier = verifiers[index] as Verifier
      let answer
      try {
        answer = verifier.verify(credential, request)
      } catch (error) {
        return { claimedBy: verifier.kind, refusal: error }
      }
      if (answer instanceof Promise) {
        return answer.then(
          (result) =>
            result === NOT_RESPONSIBLE
              ? this.#askFrom(index + 1, credential, request)
              : claimed(verifier.kind, result),
          (error: unknown): ChainOutcome => ({ claimedBy: verifier.kind, refusal: error }),
        )
      }
      if (answer !== NOT_RESPONSIBLE) return claimed(verifier.kind, answer)
    }
    return NO_CLAIM
  }
}

const NO_CLAIM: ChainOutcome = Object.freeze({ claimedBy: undefined })

function claimed(
  kind: Verifier['kind'],
  result: Exclude<VerifierResult, typeof NOT_RESPONSIBLE>,
): ChainOutcome {
  return result instanceof GatewayError
    ? { claimedBy: kind, refusal: result }
    : { claimedBy: kind, principal: result }
}
