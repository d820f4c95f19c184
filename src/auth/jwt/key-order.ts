import type { CompactVerifyResult, VerifyOptions } from 'jose'
import type { GatewayError } from '../../errors.js'
import { isGatewayError } from '../../errors.js'
import type { Logger } from '../../logger.js'
import type { Payload } from './jwt-claims.js'
import { checkIssuer } from './issuer-check.js'
import { decodingError, fromJoseError, invalidToken, keysUnavailable } from './jwt-errors.js'
import type { JwksSources, KeySelection } from './jwks-sources.js'
import type { JwtAlgorithm } from './key-fit.js'
import type { VerificationKey } from './key-set.js'
import { checkRegisteredClaims, isDecodingFailure } from './registered-claims.js'

/** Fixed in AgentOS's validator; applies to exp, nbf and iat. */
export const LEEWAY_SECONDS = 10

/**
 * jose's `compactVerify` (the signature only: the claims are checked as PyJWT checks them, which
 * jose's `jwtVerify` does not), or a check that answers at once; tests inject a counting wrapper.
 */
export type VerifyJws = (
  token: string,
  key: VerificationKey,
  options: VerifyOptions,
) => VerifiedJws | Promise<VerifiedJws>

type VerifiedJws = Pick<CompactVerifyResult, 'payload'>

export interface KeyOrder {
  readonly algorithm: JwtAlgorithm
  readonly jwks: JwksSources | undefined
  readonly staticKeys: readonly VerificationKey[]
  readonly verifyJws: VerifyJws
  readonly logger: Logger
}

/**
 * JWT-8: the JWKS key named by `kid` (remote key set, then JWKS file; else the kid-less
 * key; an unknown kid may refetch once per cooldown), then each static key in order. An expiry
 * stops at once; another JWKS failure stops at once only without static keys; otherwise the last
 * error wins. A token verified with a key of auth.oidc_issuer must carry that `iss`. When no
 * key matched and the remote key set cannot be used, a token no key verified gets 503: it may be
 * valid under the keys that could not be fetched. Static keys alone, with checks that answer at
 * once (node:crypto), answer at once: a refusal is then thrown rather than rejected.
 */
export function verifyInKeyOrder(
  order: KeyOrder,
  token: string,
  kid: unknown,
  now: number,
): Payload | Promise<Payload> {
  if (order.jwks === undefined) return tryStaticKeys(order, token, kid, now, 0, undefined)
  return verifyWithJwks(order, order.jwks, token, kid, now)
}

async function verifyWithJwks(
  order: KeyOrder,
  jwks: JwksSources,
  token: string,
  kid: unknown,
  now: number,
): Promise<Payload> {
  const selection = await jwks.select(kid, now)
  let lastError: GatewayError | undefined
  if (selection.key !== undefined) {
    try {
      const payload = await attempt(order, token, selection.key, now)
      if (selection.issuer !== undefined) checkIssuer(payload, selection.issuer)
      return payload
    } catch (error) {
      const failure = asFailure(order.logger, error)
      if (endsVerification(failure) || failure.reason === 'jwt.issuer') throw failure
      if (order.staticKeys.length === 0) throw unlessUnavailable(failure, selection)
      lastError = failure
    }
  }
  return tryStaticKeys(order, token, kid, now, 0, lastError, selection)
}

/**
 * The static keys from `index` on, after `lastError`: each attempt that answers at once is
 * followed by the next at once, one that waits continues the order when it settles.
 */
function tryStaticKeys(
  order: KeyOrder,
  token: string,
  kid: unknown,
  now: number,
  index: number,
  lastError: GatewayError | undefined,
  selection?: KeySelection,
): Payload | Promise<Payload> {
  const keys = order.staticKeys
  let failure = lastError
  for (let at = index; at < keys.length; at++) {
    let answer: Payload | Promise<Payload>
    try {
      answer = attempt(order, token, keys[at] as VerificationKey, now)
    } catch (error) {
      failure = staticKeyFailure(order, error)
      continue
    }
    if (!(answer instanceof Promise)) return answer
    return answer.catch((error: unknown) =>
      tryStaticKeys(order, token, kid, now, at + 1, staticKeyFailure(order, error), selection),
    )
  }
  throw unlessUnavailable(failure ?? noKeyToTry(order, kid, now), selection)
}

/** A static key's failure to remember while the next key is tried; an expiry stops at once. */
function staticKeyFailure(order: KeyOrder, error: unknown): GatewayError {
  const failure = asFailure(order.logger, error)
  if (endsVerification(failure)) throw failure
  return failure
}

/**
 * AgentOS's one text for a token no key was tried on, with the cause as the reason: the token's
 * `kid` is in no key set, it names none and every key has one, or there are no keys at all.
 */
function noKeyToTry(order: KeyOrder, kid: unknown, now: number): GatewayError {
  const reason =
    order.jwks?.hasKeys(now) !== true
      ? 'jwt.no_keys'
      : typeof kid === 'string' && kid !== ''
        ? 'jwt.unknown_kid'
        : 'jwt.no_kid'
  return invalidToken(reason, 'No verification keys configured')
}

/** The reasons of a token that no key verified: the keys that could not be fetched might. */
const FOR_WANT_OF_A_KEY: ReadonlySet<string> = new Set([
  'jwt.signature',
  'jwt.unknown_kid',
  'jwt.no_kid',
  'jwt.no_keys',
])

/** A refusal for want of a key becomes 503 while the remote key set cannot be used. */
function unlessUnavailable(
  failure: GatewayError,
  selection: KeySelection | undefined,
): GatewayError {
  const unavailable = selection?.unavailable
  if (unavailable === undefined) return failure
  if (!FOR_WANT_OF_A_KEY.has(failure.reason)) return failure
  return keysUnavailable(unavailable.everLoaded, unavailable.retryAfterSeconds)
}

function attempt(
  order: KeyOrder,
  token: string,
  key: VerificationKey,
  now: number,
): Payload | Promise<Payload> {
  const verified = order.verifyJws(token, key, { algorithms: [order.algorithm] })
  if (verified instanceof Promise)
    return verified.then(({ payload }) => checkedClaims(payload, now))
  return checkedClaims(verified.payload, now)
}

function checkedClaims(payload: Uint8Array, now: number): Payload {
  const claims = parsePayload(payload)
  checkRegisteredClaims(claims, now / 1000, LEEWAY_SECONDS)
  return claims
}

// Stateless between calls (no `stream` option), so one serves every token.
const UTF8 = new TextDecoder('utf-8', { fatal: true })

/** PyJWT: the payload must be a JSON object (Python's parser; jose's JSON.parse here). */
function parsePayload(bytes: Uint8Array): Payload {
  let value: unknown
  try {
    value = JSON.parse(UTF8.decode(bytes))
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
  if (isGatewayError(error)) return error
  const failure = fromJoseError(error)
  if (failure !== undefined) return failure
  logger.error({ error }, 'JWT verification failed unexpectedly')
  throw decodingError(error)
}
