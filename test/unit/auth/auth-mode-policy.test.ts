import t from 'tap'
import { AuthModePolicy } from '../../../src/auth/auth-mode-policy.js'
import { summarizeAuthMode } from '../../../src/config/auth-mode.js'
import { GatewayError } from '../../../src/errors.js'
import { ANONYMOUS } from '../../../src/principal.js'
import { authConfig } from './helpers.js'

function policyOf(input: Record<string, unknown>): AuthModePolicy {
  const auth = authConfig(input)
  return new AuthModePolicy(summarizeAuthMode(auth), auth)
}

void t.test('a closed instance answers a missing credential with one prepared 401', async (t) => {
  const policy = policyOf({ security_key: 'k'.repeat(32) })
  const first = policy.withoutCredential()
  t.ok(first instanceof GatewayError)
  t.match(first, { code: 'CREDENTIALS_MISSING', reason: 'credential.missing' })
  t.equal(policy.withoutCredential(), first, 'the same answer, not a new error per request')
  t.equal((first as GatewayError).bodyText, '{"detail":"Authorization header required"}')
})

void t.test('an open instance lets a request without a credential through', async (t) => {
  t.equal(policyOf({ open: true }).withoutCredential(), ANONYMOUS)
})
