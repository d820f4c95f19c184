import { GatewayError } from '../errors.js'
import type { ReasonIn } from '../reasons.js'

export const INVALID_TOKEN_DETAIL = 'Invalid or expired service account token'
export const THROTTLED_DETAIL = 'Too many failed authentication attempts'
export const UNAVAILABLE_DETAIL = 'Authentication is temporarily unavailable'

/** Internal reasons: one client text for all failures, a distinct reason for logs and metrics. */
export type FailureReason = Extract<
  ReasonIn<'service_account'>,
  'malformed' | 'unknown' | 'revoked' | 'expired'
>

/**
 * Refusals are prepared, not made per request: a flood of bad tokens is answered with the same
 * few errors (a GatewayError is never changed once made), each with its JSON text made once.
 */
const INVALID_TOKEN_ERRORS = new Map<FailureReason, GatewayError>()

export function invalidTokenError(reason: FailureReason): GatewayError {
  let error = INVALID_TOKEN_ERRORS.get(reason)
  if (error === undefined) {
    error = new GatewayError('TOKEN_INVALID', INVALID_TOKEN_DETAIL, {
      reason: `service_account.${reason}`,
    })
    INVALID_TOKEN_ERRORS.set(reason, error)
  }
  return error
}

/** Retry-After values kept prepared: the throttle's window bounds them, this bounds the map. */
const MAX_PREPARED_RETRY_AFTER = 3600
const THROTTLED_ERRORS = new Map<number, GatewayError>()

export function throttledError(retryAfterSeconds: number): GatewayError {
  let error = THROTTLED_ERRORS.get(retryAfterSeconds)
  if (error === undefined) {
    error = new GatewayError('THROTTLED', THROTTLED_DETAIL, {
      reason: 'service_account.throttled',
      headers: { 'Retry-After': String(retryAfterSeconds) },
    })
    if (retryAfterSeconds <= MAX_PREPARED_RETRY_AFTER)
      THROTTLED_ERRORS.set(retryAfterSeconds, error)
  }
  return error
}

/**
 * Seconds a client is told to wait after a 503 caused by the store (unreachable, timed out):
 * about one connect timeout, so that retries do not pile onto a database that is coming back.
 */
export const STORE_RETRY_AFTER_SECONDS = 5

export function unavailableError(cause: unknown): GatewayError {
  return new GatewayError('AUTH_UNAVAILABLE', UNAVAILABLE_DETAIL, {
    reason: 'service_account.unavailable',
    cause,
    headers: { 'Retry-After': String(STORE_RETRY_AFTER_SECONDS) },
  })
}
