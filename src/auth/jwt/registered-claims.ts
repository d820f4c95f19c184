import { GatewayError } from '../../errors.js'
import { invalidToken, tokenExpired } from './jwt-errors.js'

type Payload = Readonly<Record<string, unknown>>

function claim(payload: Payload, name: string): unknown {
  return Object.hasOwn(payload, name) ? payload[name] : undefined
}

/**
 * PyJWT 2.x's claim checks, run after the signature as AgentOS's decode runs them (docs/agentos-
 * compatibility.md, JWT-1 to JWT-5): `iat`, `nbf`, `exp` are read with Python's `int()` (numeric
 * strings and booleans count, a float is truncated), then `sub` and `jti` must be strings.
 */
export function checkRegisteredClaims(payload: Payload, nowSeconds: number, leeway: number): void {
  const iat = timeClaim(payload, 'iat', 'Issued At')
  if (iat !== undefined && iat > nowSeconds + leeway) {
    throw invalidToken('jwt.not_yet_valid', 'The token is not yet valid (iat)')
  }
  const nbf = timeClaim(payload, 'nbf', 'Not Before')
  if (nbf !== undefined && nbf > nowSeconds + leeway) {
    throw invalidToken('jwt.not_yet_valid', 'The token is not yet valid (nbf)')
  }
  const exp = timeClaim(payload, 'exp', 'Expiration Time')
  if (exp !== undefined && exp <= nowSeconds - leeway) throw tokenExpired()
  const sub = claim(payload, 'sub')
  if (sub !== undefined && typeof sub !== 'string') {
    throw invalidToken('jwt.claims', 'Subject must be a string')
  }
  const jti = claim(payload, 'jti')
  if (jti !== undefined && typeof jti !== 'string') {
    throw invalidToken('jwt.claims', 'JWT ID must be a string')
  }
}

/**
 * A configured `user_id_claim` other than `sub` is not checked by PyJWT; AgentOS would use an
 * object or a list as the user id and, when it is empty, scope nothing. Portcullis refuses such a
 * token rather than run it without a user (a number stays its decimal text, null no user).
 */
export function checkUserIdClaim(payload: Payload, userIdClaim: string): void {
  if (userIdClaim === 'sub') return
  const value = claim(payload, userIdClaim)
  if (typeof value === 'boolean' || (typeof value === 'object' && value !== null)) {
    throw invalidToken('jwt.claims', `User id claim (${userIdClaim}) must be a string`)
  }
}

/** `Error decoding token: …`: a Python exception PyJWT lets through; AgentOS stops at once. */
export function isDecodingFailure(error: GatewayError): boolean {
  return (
    error.reason === 'jwt.claims' &&
    typeof error.detail === 'string' &&
    error.detail.startsWith(DECODE_ERROR_PREFIX)
  )
}

/** A time claim's value in seconds as PyJWT reads it; undefined when absent or not readable. */
export function claimSeconds(value: unknown): number | undefined {
  const converted = pythonInt(value)
  return typeof converted === 'number' ? converted : undefined
}

const DECODE_ERROR_PREFIX = 'Error decoding token: '
// Python's int(): surrounding whitespace, a sign, decimal digits with single `_` between them.
const PYTHON_INT = /^[+-]?[0-9](?:_?[0-9])*$/

type Conversion = number | { readonly valueError: true } | { readonly typeError: string }

/** JSON values through Python's `int()`: the number, or how it fails (ValueError, TypeError). */
function pythonInt(value: unknown): Conversion {
  if (typeof value === 'boolean') return value ? 1 : 0
  if (typeof value === 'number') {
    // JSON can spell numbers beyond a float (1e400); Python reads them as inf, int() overflows.
    if (!Number.isFinite(value)) return { typeError: 'cannot convert float infinity to integer' }
    return Math.trunc(value)
  }
  if (typeof value === 'string') {
    const text = value.trim()
    return PYTHON_INT.test(text) ? Number(text.replaceAll('_', '')) : { valueError: true }
  }
  const type = value === null ? 'NoneType' : Array.isArray(value) ? 'list' : 'dict'
  return {
    typeError: `int() argument must be a string, a bytes-like object or a real number, not '${type}'`,
  }
}

function timeClaim(payload: Payload, name: string, label: string): number | undefined {
  const value = claim(payload, name)
  if (value === undefined) return undefined
  const converted = pythonInt(value)
  if (typeof converted === 'number') return converted
  if ('valueError' in converted) {
    throw invalidToken('jwt.claims', `${label} claim (${name}) must be an integer.`)
  }
  throw new GatewayError('TOKEN_INVALID', `${DECODE_ERROR_PREFIX}${converted.typeError}`, {
    reason: 'jwt.claims',
  })
}
