import { GatewayError } from '../errors.js'
import type { InboundRequest } from '../inbound/inbound-request.js'
import type { Principal } from '../principal.js'
import { isServiceToken, type Credential } from './credential.js'
import { NOT_RESPONSIBLE, type Verifier } from './verifier.js'

const SERVICE_ACCOUNTS_DISABLED = 'Service accounts are not enabled on this AgentOS instance'

/** Claims `svc_pat_` tokens while service accounts are off, and refuses them (503). */
export class ServiceAccountsOff implements Verifier {
  readonly kind = 'service_account'

  async verify(credential: Credential): Promise<Principal | typeof NOT_RESPONSIBLE> {
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
   * Asks each verifier in order. `onClaim` hears which verifier claimed the credential before its
   * answer is known, so that a failure is traced to it too.
   */
  async verify(
    credential: Credential,
    request: InboundRequest,
    onClaim?: (kind: Verifier['kind']) => void,
  ): Promise<ChainOutcome> {
    for (const verifier of this.#verifiers) {
      const principal = await claimOrFail(verifier, credential, request, onClaim)
      if (principal !== NOT_RESPONSIBLE) return { claimedBy: verifier.kind, principal }
    }
    return { claimedBy: undefined }
  }
}

async function claimOrFail(
  verifier: Verifier,
  credential: Credential,
  request: InboundRequest,
  onClaim: ((kind: Verifier['kind']) => void) | undefined,
): Promise<Principal | typeof NOT_RESPONSIBLE> {
  try {
    const principal = await verifier.verify(credential, request)
    if (principal !== NOT_RESPONSIBLE) onClaim?.(verifier.kind)
    return principal
  } catch (error) {
    onClaim?.(verifier.kind)
    throw error
  }
}
