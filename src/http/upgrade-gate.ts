import type { IncomingMessage } from 'node:http'
import type { Credential } from '../auth/credential.js'
import { extractCredential, type CredentialSettings } from '../auth/extract-credential.js'
import type { AuthPipeline } from '../auth/pipeline.js'
import { GatewayError } from '../errors.js'
import type { IdentityEnforcer } from '../identity/identity-enforcer.js'
import type { InboundRequest } from '../inbound/inbound-request.js'
import type { ForwardPlan } from '../upstream/forward-plan.js'
import { offeredProtocols } from './websocket-handshake.js'

/** A browser cannot set headers on a WebSocket; it may offer `bearer` and then the token as subprotocols. */
export const BEARER_SUBPROTOCOL = 'bearer'

export interface SubprotocolCredential {
  readonly credential: Credential | undefined
  /** The offered list without the credential-carrying entries. */
  readonly protocols: string[]
}

/**
 * Finds `bearer, <token>` among the offered subprotocols and removes both from the list. Two
 * `bearer` entries are refused (400), as two credential headers are: which one counts is
 * ambiguous, and the other would be passed upstream.
 */
export function subprotocolCredential(offered: readonly string[]): SubprotocolCredential {
  const index = offered.indexOf(BEARER_SUBPROTOCOL)
  if (index !== -1 && offered.indexOf(BEARER_SUBPROTOCOL, index + 1) !== -1) {
    throw new GatewayError('BAD_REQUEST', 'Multiple credentials in one request', {
      reason: 'credential.duplicate_subprotocol',
    })
  }
  const token = index === -1 ? undefined : offered[index + 1]
  if (token === undefined) return { credential: undefined, protocols: [...offered] }
  return {
    credential: { token, source: 'subprotocol' },
    protocols: offered.filter((_, position) => position !== index && position !== index + 1),
  }
}

/** What the gate decides for an upgrade it lets through. */
export interface UpgradeAdmission {
  /** What reaches the upstream, and whose credential ends the connection. */
  readonly plan: ForwardPlan
  /** Subprotocols to offer upstream: the client's, minus any that carried a credential. */
  readonly protocols: readonly string[]
  /** Answered to the client when the upstream selects none (`bearer`, when the token came that way). */
  readonly fallbackProtocol: string | undefined
}

/** Authenticates, authorizes and plans an upgrade; throws a GatewayError to refuse it. */
export type UpgradeGate = (
  inbound: InboundRequest,
  req: IncomingMessage,
) => Promise<UpgradeAdmission>

/**
 * Upgrades go through the same decision core as HTTP requests: the header or cookie credential,
 * else a bearer subprotocol; a refusal happens on the raw socket before the upstream sees anything.
 */
export function createUpgradeGate(deps: {
  pipeline: AuthPipeline
  enforcer: IdentityEnforcer
  credentials: CredentialSettings
}): UpgradeGate {
  return async function upgradeGate(inbound) {
    const fromSubprotocol = subprotocolCredential(offeredProtocols(inbound))
    const credential =
      extractCredential(inbound, deps.credentials) ?? fromSubprotocol.credential ?? null
    const decision = await deps.pipeline.decide(inbound, { credential })
    const plan = await deps.enforcer.plan({
      principal: decision.principal,
      method: 'GET',
      path: inbound.path,
      route: decision.route,
      query: inbound.query,
      headers: inbound.headers,
      accessibleIds: decision.authorization?.accessibleIds,
      public: decision.public,
    })
    return {
      plan,
      protocols: fromSubprotocol.protocols,
      // The pair goes even when the header or cookie was used instead: the token is a secret.
      fallbackProtocol: fromSubprotocol.credential !== undefined ? BEARER_SUBPROTOCOL : undefined,
    }
  }
}
