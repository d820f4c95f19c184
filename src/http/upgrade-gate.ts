import type { WebSocket } from 'ws'
import type { AuthPipeline } from '../auth/pipeline.js'
import type { Credential } from '../auth/credential.js'
import type { InboundRequest } from '../inbound/inbound-request.js'
import type { Principal } from '../auth/principal.js'
import { extractCredential, type CredentialSettings } from '../auth/extract-credential.js'
import { GatewayError } from '../errors.js'
import type { IdentityEnforcer } from '../identity/identity-enforcer.js'
import type { IncomingMessage } from 'node:http'
import type { UpgradeAdmission } from './upgrade.js'
import { offeredProtocols } from './websocket-handshake.js'

/** A browser cannot set headers on a WebSocket; it may offer `bearer` and then the token as subprotocols. */
export const BEARER_SUBPROTOCOL = 'bearer'

/** Close code when a connection's credential expires or is revoked (RFC 6455 §7.4.1: policy violation). */
export const CREDENTIAL_ENDED_CLOSE_CODE = 1008

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

/**
 * Upgrades go through the same decision core as HTTP requests: the header or cookie credential,
 * else a bearer subprotocol; a refusal happens on the raw socket before the upstream sees anything.
 */
export function createUpgradeGate(deps: {
  pipeline: AuthPipeline
  enforcer: IdentityEnforcer
  credentials: CredentialSettings
  now?: () => number
  /** Ends relayed connections with their credential; expiry only when absent. */
  watch?: ConnectionWatch
}) {
  const now = deps.now ?? Date.now
  const watch = deps.watch ?? {
    watch: (client, principal) => closeAtExpiry(client, principal, now),
  }
  return async function upgradeGate(
    inbound: InboundRequest,
    req: IncomingMessage,
  ): Promise<UpgradeAdmission> {
    const offered = offeredProtocols(inbound)
    const fromSubprotocol = subprotocolCredential(offered)
    const credential =
      extractCredential(inbound, deps.credentials) ?? fromSubprotocol.credential ?? null
    const decision = await deps.pipeline.decide(inbound, credential)
    const plan = await deps.enforcer.plan({
      principal: decision.principal,
      method: 'GET',
      path: inbound.path,
      query: inbound.query,
      headers: inbound.headers,
      body: req,
      accessibleIds: decision.authorization?.accessibleIds,
      public: decision.public,
    })
    // The pair goes even when the header or cookie was used instead: the token is a secret.
    const offeredBearer = fromSubprotocol.credential !== undefined
    return {
      headers: plan.headers,
      query: plan.query,
      protocols: fromSubprotocol.protocols,
      ...(offeredBearer ? { fallbackProtocol: BEARER_SUBPROTOCOL } : {}),
      onOpen: (client) => {
        watch.watch(client, decision.principal)
      },
    }
  }
}

/** Something that closes a connection when its credential ends (expiry, revocation). */
export interface ConnectionWatch {
  /** Starts watching; the returned function stops it (closing the socket stops it too). */
  watch(client: WebSocket, principal: Principal): () => void
}

// setTimeout fires at once beyond 2^31-1 ms (about 24.8 days); longer waits are chained.
const MAX_TIMER_MS = 2_147_483_647

/** A connection does not outlive its credential: closed with 1008 when `expiresAt` passes. */
export function closeAtExpiry(
  client: WebSocket,
  principal: Principal,
  now: () => number = Date.now,
): () => void {
  const expiresAt = principal.expiresAt
  if (expiresAt === null) return () => undefined
  let timer: NodeJS.Timeout | undefined
  const arm = (): void => {
    const remaining = expiresAt * 1000 - now()
    if (remaining <= 0) {
      client.close(CREDENTIAL_ENDED_CLOSE_CODE, 'credential expired')
      return
    }
    timer = setTimeout(arm, Math.min(remaining, MAX_TIMER_MS))
    timer.unref()
  }
  const stop = (): void => clearTimeout(timer)
  client.once('close', stop)
  arm()
  return () => {
    stop()
    client.off('close', stop)
  }
}
