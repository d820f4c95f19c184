import type { GatewayError } from '../errors.js'
import type { Authorization } from '../policy/authorizer.js'
import type { MatchedRoute } from '../policy/catalogue/route-catalogue.js'
import type { Principal } from '../principal.js'
import type { Reason } from '../reasons.js'
import type { Credential } from './credential.js'
import type { Verifier } from './verifier.js'

/** Which verifier claimed the credential (`none`: there was none, or no verifier claimed it). */
export type CredentialKind = Verifier['kind'] | 'none'

/** Where the credential came from (`none`: nowhere). */
export type CredentialSource = Credential['source'] | 'none'

/**
 * What the decision core made of one request, HTTP or WebSocket: the value the metrics, the access
 * log, the debug line and a refusal on a raw socket read.
 */
export type Decision = PublicDecision | AllowedDecision | DeniedDecision

interface DecisionBase {
  /** The route catalogue's entry for the request, matched once for every later stage. */
  readonly route: MatchedRoute
  readonly credential: { readonly kind: CredentialKind; readonly source: CredentialSource }
}

/** An excluded route or a CORS preflight: no credential was looked at, nothing authorized. */
export interface PublicDecision extends DecisionBase {
  readonly outcome: 'public'
  readonly reason: 'ok'
  readonly principal: Principal
  readonly authorization: undefined
}

export interface AllowedDecision extends DecisionBase {
  readonly outcome: 'allowed'
  readonly reason: 'ok'
  readonly principal: Principal
  readonly authorization: Authorization
}

export interface DeniedDecision extends DecisionBase {
  readonly outcome: 'denied'
  readonly reason: Reason
  /** Undefined when authentication itself failed. */
  readonly principal: Principal | undefined
  readonly authorization: undefined
  /** The answer: status, AgentOS's text, headers. */
  readonly refusal: GatewayError
}

/** The decision's refusal, thrown; the decision's principal and authorization otherwise. */
export function admitted(decision: Decision): PublicDecision | AllowedDecision {
  if (decision.outcome === 'denied') throw decision.refusal
  return decision
}
