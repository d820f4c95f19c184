import { errors } from 'jose'
import { GatewayError } from '../../errors.js'
import { REASONS, type Reason, type ReasonFor, type ReasonIn } from '../../reasons.js'

/** Every reason a JWT is refused (the `jwt.` rows of the reason table); the WebSocket maps them. */
export type JwtFailureReason = `jwt.${ReasonIn<'jwt'>}`

export const JWT_FAILURE_REASONS = (Object.keys(REASONS) as Reason[]).filter(
  (reason): reason is JwtFailureReason => reason.startsWith('jwt.'),
)

const INVALID_TOKEN_PREFIX = 'Invalid token: '
const DECODE_ERROR_PREFIX = 'Error decoding token: '

/** A 401 `Invalid token: <message>` (JWT-9); the message never contains token content. */
export function invalidToken(
  reason: Extract<JwtFailureReason, ReasonFor<'TOKEN_INVALID'>>,
  message: string,
): GatewayError {
  return new GatewayError('TOKEN_INVALID', `${INVALID_TOKEN_PREFIX}${message}`, { reason })
}

export function tokenExpired(): GatewayError {
  return new GatewayError('TOKEN_EXPIRED', 'Token has expired', { reason: 'jwt.expired' })
}

export function reservedSubject(): GatewayError {
  return new GatewayError('TOKEN_INVALID', 'Invalid token subject', {
    reason: 'jwt.reserved_subject',
  })
}

export function audienceMismatch(): GatewayError {
  return new GatewayError(
    'TOKEN_INVALID',
    'Invalid token audience - token not valid for this AgentOS instance',
    { reason: 'jwt.audience_mismatch' },
  )
}

export function audienceMissing(audienceClaim: string): GatewayError {
  return invalidToken(
    'jwt.audience_missing',
    `Token is missing the "${audienceClaim}" claim. Audience verification requires this claim to be present in the token.`,
  )
}

/**
 * 503: the remote key set the token may need cannot be used (never loaded, or dropped past its
 * stale bound). Not a 401: the token was not found wrong, it could not be judged. Worded like the
 * service-account store's outage answer, with why.
 */
export function keysUnavailable(everLoaded: boolean, retryAfterSeconds: number): GatewayError {
  const why = everLoaded
    ? "the identity provider's signing keys are out of date and cannot be refreshed"
    : "the identity provider's signing keys could not be fetched"
  return new GatewayError('AUTH_UNAVAILABLE', `Authentication is temporarily unavailable: ${why}`, {
    reason: 'jwt.keys_unavailable',
    headers: { 'Retry-After': String(retryAfterSeconds) },
  })
}

/** AgentOS's `Error decoding token: …` for a failure that is not the token's fault. */
export function decodingError(cause: unknown): GatewayError {
  return new GatewayError(
    'TOKEN_INVALID',
    `${DECODE_ERROR_PREFIX}the verification key could not be used`,
    {
      reason: 'jwt.key_unusable',
      cause,
    },
  )
}

const CLAIM_LABELS: Readonly<Record<string, string>> = {
  exp: 'Expiration Time',
  nbf: 'Not Before',
  iat: 'Issued At',
}

/** Maps a jose failure to AgentOS's (PyJWT's) wording; undefined for anything that is not jose's. */
export function fromJoseError(error: unknown): GatewayError | undefined {
  if (error instanceof errors.JWTExpired) return tokenExpired()
  if (error instanceof errors.JWSSignatureVerificationFailed) {
    return invalidToken('jwt.signature', 'Signature verification failed')
  }
  if (error instanceof errors.JOSEAlgNotAllowed) {
    return invalidToken('jwt.algorithm', 'The specified alg value is not allowed')
  }
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === 'nbf' && error.reason === 'check_failed') {
      return invalidToken('jwt.not_yet_valid', 'The token is not yet valid (nbf)')
    }
    const label = CLAIM_LABELS[error.claim]
    if (label !== undefined) {
      return invalidToken('jwt.claims', `${label} claim (${error.claim}) must be an integer.`)
    }
    return invalidToken('jwt.claims', 'Invalid claims')
  }
  if (error instanceof errors.JWTInvalid) {
    return invalidToken('jwt.malformed', 'Invalid payload string: must be a json object')
  }
  if (error instanceof errors.JOSENotSupported) {
    return invalidToken('jwt.malformed', 'Unsupported critical header parameter')
  }
  if (error instanceof errors.JOSEError) return invalidToken('jwt.malformed', 'Malformed token')
  return undefined
}

export interface WebSocketJwtError {
  error: string
  error_type: 'expired' | 'invalid_token'
}

/**
 * The `auth_error` frame of `/workflows/ws` for a refused JWT (WS-1): AgentOS sends the
 * bare PyJWT message (`Signature has expired`, `Not enough segments`, `Invalid token subject`),
 * `expired` when the message says so. The audience mismatch text of PyJWT lists the expected and
 * presented audiences; it is shortened to `Invalid audience` so no token content is echoed.
 */
export function webSocketJwtError(error: GatewayError): WebSocketJwtError {
  if (error.code === 'TOKEN_EXPIRED' || error.reason === 'jwt.expired') {
    return { error: 'Signature has expired', error_type: 'expired' }
  }
  if (error.reason === 'jwt.audience_mismatch') {
    return { error: 'Invalid audience', error_type: 'invalid_token' }
  }
  const detail = typeof error.detail === 'string' ? error.detail : 'Invalid token'
  const message = stripPrefix(stripPrefix(detail, INVALID_TOKEN_PREFIX), DECODE_ERROR_PREFIX)
  const text = message === '' ? 'Invalid token' : message
  return {
    error: text,
    error_type: text.toLowerCase().includes('expired') ? 'expired' : 'invalid_token',
  }
}

function stripPrefix(text: string, prefix: string): string {
  return text.startsWith(prefix) ? text.slice(prefix.length) : text
}
