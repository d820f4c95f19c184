import type { CompactVerifyResult, VerifyOptions } from 'jose'
import { GatewayError } from '../../errors.js'
import type { Logger } from '../../logger.js'
import type { Payload } from './jwt-claims.js'
import { decodingError, fromJoseError, invalidToken } from './jwt-errors.js'
import type { JwksFile } from './jwks-file.js'
import type { JwtAlgorithm } from './key-fit.js'
import type { VerificationKey } from './key-set.js'
import { checkRegisteredClaims, isDecodingFailure } from './registered-claims.js'

/** Fixed in AgentOS's validator; applies to exp, nbf and iat. */
export const LEEWAY_SECONDS = 10

/**
 * jose's `compactVerify` (the signature only: the claims are checked as PyJWT checks them, which
 * jose's `jwtVerify` does not); tests inject a counting wrapper.
 */
export type VerifyJws = (
  token: string,
  key: VerificationKey,
  options: VerifyOptions,
) => Promise<Pick<CompactVerifyResult, 'payload'>>

export interface KeyOrder {
  readonly algorithm: JwtAlgorithm
  readonly jwks: JwksFile | undefined
  readonly staticKeys: readonly VerificationKey[]
  readonly verifyJws: VerifyJws
  readonly logger: Logger
}

/**
 * Reference 6.2: the JWKS key named by `kid` (else the kid-less key; an unknown kid may re-read
 * the file once per cooldown), then each static key in order. An expiry stops at once; another
 * JWKS failure stops at once only without static keys; otherwise the last error wins.
 */
export async function verifyInKeyOrder(
  order: KeyOrder,
  token: string,
  kid: unknown,
  now: number,
): Promise<Payload> {
  let lastError: GatewayError | undefined
  const jwksKey = await jwksKeyFor(order.jwks, kid)
  if (jwksKey !== undefined) {
    try {
      return await attempt(order, token, jwksKey, now)
    } catch (error) {
      const failure = asFailure(order.logger, error)
      if (endsVerification(failure) || order.staticKeys.length === 0) throw failure
      lastError = failure
    }
  }
  for (const key of order.staticKeys) {
    try {
      return await attempt(order, token, key, now)
    } catch (error) {
      const failure = asFailure(order.logger, error)
      if (endsVerification(failure)) throw failure
      lastError = failure
    }
  }
  throw lastError ?? invalidToken('jwt.no_keys', 'No verification keys configured')
}

/** `kid` is only ever an exact key of the map: never a path, a URL or a query. */
async function jwksKeyFor(
  jwks: JwksFile | undefined,
  kid: unknown,
): Promise<VerificationKey | undefined> {
  if (jwks === undefined) return undefined
  const wanted = typeof kid === 'string' && kid !== '' ? kid : undefined
  if (wanted !== undefined && !jwks.keys.byKid.has(wanted)) await jwks.refreshForUnknownKid()
  const keys = jwks.keys
  return (wanted === undefined ? undefined : keys.byKid.get(wanted)) ?? keys.fallback
}

async function attempt(
  order: KeyOrder,
  token: string,
  key: VerificationKey,
  now: number,
): Promise<Payload> {
  const { payload } = await order.verifyJws(token, key, { algorithms: [order.algorithm] })
  const claims = parsePayload(payload)
  checkRegisteredClaims(claims, now / 1000, LEEWAY_SECONDS)
  return claims
}

/** PyJWT: the payload must be a JSON object (Python's parser; jose's JSON.parse here). */
function parsePayload(bytes: Uint8Array): Payload {
  let value: unknown
  try {
    value = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes))
  } catch {
    value = undefined
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalidToken('jwt.malformed', 'Invalid payload string: must be a json object')
  }
  return value as Payload
}

/** An expiry, or an error Python raised outside PyJWT, stops at once; others try the next key. */
function endsVerification(failure: GatewayError): boolean {
  return failure.code === 'TOKEN_EXPIRED' || isDecodingFailure(failure)
}

/** A token failure to record; anything else (a key jose cannot use) ends the attempt at once. */
function asFailure(logger: Logger, error: unknown): GatewayError {
  if (error instanceof GatewayError) return error
  const failure = fromJoseError(error)
  if (failure !== undefined) return failure
  logger.error({ error }, 'JWT verification failed unexpectedly')
  throw decodingError(error)
}
