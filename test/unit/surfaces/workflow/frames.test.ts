import t from 'tap'
import { ANONYMOUS } from '../../../../src/principal.js'
import { GatewayError } from '../../../../src/errors.js'
import {
  invalidTokenError,
  throttledError,
  unavailableError,
} from '../../../../src/service-accounts/verification-errors.js'
import {
  authenticatedFrames,
  authErrorFrame,
  authRequiredFrame,
  connectedFrame,
  GENERIC_AUTHENTICATED,
  unknownActionFrame,
} from '../../../../src/surfaces/workflow/frames.js'
import { jwtPrincipal, SECURITY_KEY, servicePrincipal } from '../helpers.js'

void t.test('connected and auth_required texts (WS-1)', async (t) => {
  t.same(connectedFrame(true), {
    event: 'connected',
    message: 'Connected to AgentOS. Please authenticate to continue.',
    requires_auth: true,
  })
  t.same(connectedFrame(false), {
    event: 'connected',
    message: 'Connected to AgentOS.',
    requires_auth: false,
  })
  t.match(authRequiredFrame(true), { error: /valid JWT\.$/ })
  t.match(authRequiredFrame(false), { error: /valid bearer token\.$/ })
})

void t.test('authenticated frames per credential kind', async (t) => {
  t.same(authenticatedFrames(servicePrincipal('bot', [])), [
    GENERIC_AUTHENTICATED,
    {
      event: 'authenticated',
      message: 'Service account authentication successful.',
      user_id: 'sa:bot',
    },
  ])
  t.same(authenticatedFrames(jwtPrincipal([], null))[1], {
    event: 'authenticated',
    message: 'JWT authentication successful.',
    user_id: null,
  })
  t.same(authenticatedFrames(SECURITY_KEY), [GENERIC_AUTHENTICATED])
  t.same(authenticatedFrames(ANONYMOUS), [GENERIC_AUTHENTICATED])
})

void t.test('auth_error texts: service accounts (PAT-5), JWTs, the key', async (t) => {
  const sa = (error: GatewayError, jwt: boolean) => authErrorFrame(error, jwt)
  for (const jwt of [true, false]) {
    t.same(sa(invalidTokenError('revoked'), jwt), {
      event: 'auth_error',
      error: 'Invalid or expired service account token',
    })
    t.same(sa(throttledError(30), jwt), {
      event: 'auth_error',
      error: 'Too many failed authentication attempts',
    })
    t.same(sa(unavailableError(new Error('db')), jwt), {
      event: 'auth_error',
      error: 'Authentication is temporarily unavailable',
    })
    const disabled = new GatewayError('SERVICE_ACCOUNTS_DISABLED', 'not enabled', {
      reason: 'service_account.disabled',
    })
    t.same(sa(disabled, jwt), {
      event: 'auth_error',
      error: 'Invalid or expired service account token',
    })
  }
  const expired = new GatewayError('TOKEN_EXPIRED', 'Token has expired', { reason: 'jwt.expired' })
  t.same(authErrorFrame(expired, true), {
    event: 'auth_error',
    error: 'Signature has expired',
    error_type: 'expired',
  })
  const mismatch = new GatewayError('TOKEN_INVALID', 'Invalid authentication token', {
    reason: 'security_key.mismatch',
  })
  t.same(authErrorFrame(mismatch, false), { event: 'auth_error', error: 'Invalid token' })
})

void t.test('Unknown action shows the action as Python formats it', async (t) => {
  t.same(unknownActionFrame('dance'), { event: 'error', error: 'Unknown action: dance' })
  t.same(unknownActionFrame(undefined), { event: 'error', error: 'Unknown action: None' })
  t.same(unknownActionFrame(null), { event: 'error', error: 'Unknown action: None' })
  t.same(unknownActionFrame(true), { event: 'error', error: 'Unknown action: True' })
  t.same(unknownActionFrame(5), { event: 'error', error: 'Unknown action: 5' })
})
