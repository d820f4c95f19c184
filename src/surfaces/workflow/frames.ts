import type { RawData } from 'ws'
import type { Principal } from '../../principal.js'
import { webSocketJwtError } from '../../auth/jwt/index.js'
import type { GatewayError } from '../../errors.js'
import {
  INVALID_TOKEN_DETAIL,
  THROTTLED_DETAIL,
  UNAVAILABLE_DETAIL,
} from '../../service-accounts/verification-errors.js'

/** One JSON frame of the workflow protocol (WS-1), texts as AgentOS sends them. */
export type Frame = Readonly<Record<string, unknown>>

export function connectedFrame(requiresAuth: boolean): Frame {
  return requiresAuth
    ? {
        event: 'connected',
        message: 'Connected to AgentOS. Please authenticate to continue.',
        requires_auth: true,
      }
    : { event: 'connected', message: 'Connected to AgentOS.', requires_auth: false }
}

export const PONG: Frame = { event: 'pong' }
export const TOKEN_REQUIRED: Frame = { event: 'auth_error', error: 'Token is required' }

/** Sent for any action but `authenticate` before authentication, when it is required. */
export function authRequiredFrame(jwtConfigured: boolean): Frame {
  const credential = jwtConfigured ? 'JWT' : 'bearer token'
  return {
    event: 'auth_required',
    error: `Authentication required. Send authenticate action with valid ${credential}.`,
  }
}

export const GENERIC_AUTHENTICATED: Frame = {
  event: 'authenticated',
  message: 'Authentication successful. You can now send commands.',
}

/** The generic frame, then the credential's own for service accounts and JWTs. */
export function authenticatedFrames(principal: Principal): Frame[] {
  switch (principal.kind) {
    case 'service_account':
      return [
        GENERIC_AUTHENTICATED,
        {
          event: 'authenticated',
          message: 'Service account authentication successful.',
          user_id: principal.userId,
        },
      ]
    case 'jwt':
      return [
        GENERIC_AUTHENTICATED,
        {
          event: 'authenticated',
          message: 'JWT authentication successful.',
          user_id: principal.userId,
        },
      ]
    case 'security_key':
    case 'scheduler':
    case 'anonymous':
      return [GENERIC_AUTHENTICATED]
  }
}

const SERVICE_ACCOUNT_TEXTS: Readonly<Record<string, string>> = {
  'service_account.throttled': THROTTLED_DETAIL,
  'service_account.unavailable': UNAVAILABLE_DETAIL,
}

/**
 * The `auth_error` frame for a refused token. Service-account failures keep their REST texts
 * (throttling and outages included, PAT-5); JWT failures carry PyJWT's bare message and
 * `error_type`; anything else is the security key's `Invalid token`.
 */
export function authErrorFrame(error: GatewayError, jwtConfigured: boolean): Frame {
  const reason = error.reason
  if (reason.startsWith('service_account.')) {
    return { event: 'auth_error', error: SERVICE_ACCOUNT_TEXTS[reason] ?? INVALID_TOKEN_DETAIL }
  }
  if (jwtConfigured) return { event: 'auth_error', ...webSocketJwtError(error) }
  return { event: 'auth_error', error: 'Invalid token' }
}

export function errorFrame(text: string): Frame {
  return { event: 'error', error: text }
}

/** `Unknown action: <x>` with the action as Python formats it (None for a missing one). */
export function unknownActionFrame(action: unknown): Frame {
  const shown =
    typeof action === 'string'
      ? action
      : action === undefined || action === null
        ? 'None'
        : typeof action === 'boolean'
          ? action
            ? 'True'
            : 'False'
          : JSON.stringify(action)
  return errorFrame(`Unknown action: ${shown}`)
}

/** A frame's bytes, however ws delivered them. */
export function toBuffer(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data
  if (Array.isArray(data)) return Buffer.concat(data)
  return Buffer.from(data)
}
