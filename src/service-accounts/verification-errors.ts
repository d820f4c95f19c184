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

export function invalidTokenError(reason: FailureReason): GatewayError {
  return new GatewayError('TOKEN_INVALID', INVALID_TOKEN_DETAIL, {
    reason: `service_account.${reason}`,
  })
}

export function throttledError(retryAfterSeconds: number): GatewayError {
  return new GatewayError('THROTTLED', THROTTLED_DETAIL, {
    reason: 'service_account.throttled',
    headers: { 'Retry-After': String(retryAfterSeconds) },
  })
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
