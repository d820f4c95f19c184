import type { Credential } from '../auth/credential.js'
import { GatewayError } from '../errors.js'

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
