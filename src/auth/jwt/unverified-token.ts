import type { Principal } from '../../principal.js'
import { decodeJsonObject, parseCompactToken } from './compact-token.js'
import {
  principalFromClaims,
  rejectReservedSubject,
  undecodablePrincipal,
  type ClaimSettings,
  type Payload,
} from './jwt-claims.js'
import { invalidToken } from './jwt-errors.js'

export interface UnverifiedSettings extends ClaimSettings {
  readonly max_token_bytes: number
}

/**
 * `validate: false` (JWT-11): the claims are read with no check at all (signature,
 * algorithm, expiry, audience), but a reserved subject is still refused. A token that does not
 * decode leaves the request unauthenticated. The size cap still applies: it guards the parser.
 */
export function decodeUnverified(
  token: string,
  settings: UnverifiedSettings,
  context: { credentialHash: string; authorizationEnabled: boolean },
): Principal {
  if (Buffer.byteLength(token, 'utf8') > settings.max_token_bytes) {
    throw invalidToken('jwt.too_large', 'Token is too large')
  }
  let payload: Payload | undefined
  try {
    payload = decodeJsonObject(parseCompactToken(token, settings.max_token_bytes).payloadSegment)
  } catch {
    payload = undefined
  }
  if (payload === undefined) {
    return undecodablePrincipal(context.credentialHash, context.authorizationEnabled)
  }
  rejectReservedSubject(payload, settings.user_id_claim)
  return principalFromClaims(payload, settings, { ...context, verified: false })
}
