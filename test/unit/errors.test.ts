import t from 'tap'
import { errorBody, GatewayError, toGatewayError } from '../../src/errors.js'

void t.test('a refusal carries no stack; a fault keeps its stack', async (t) => {
  const before = Error.stackTraceLimit
  const refusal = new GatewayError('TOKEN_INVALID', 'Invalid authentication token', {
    reason: 'security_key.mismatch',
  })
  t.equal(refusal.status, 401)
  t.notMatch(refusal.stack ?? '', /\n\s+at /, 'no frames captured for a 401')
  const fault = new GatewayError('UPSTREAM_UNAVAILABLE', 'Upstream unavailable', {
    reason: 'upstream.refused',
  })
  t.match(fault.stack ?? '', /\n\s+at /, 'a 5xx keeps where it came from')
  t.match(toGatewayError(new Error('boom')).stack ?? '', /\n\s+at /)
  t.equal(Error.stackTraceLimit, before, 'the process-wide limit is restored')
  const plain = new Error('after')
  t.match(plain.stack ?? '', /\n\s+at /, 'errors made afterwards still have stacks')
})

void t.test('the body and the status are unchanged by it', async (t) => {
  const refusal = new GatewayError('ACCESS_DENIED', 'Insufficient permissions', {
    reason: 'rbac.scope',
  })
  t.equal(refusal.status, 403)
  t.same(errorBody(refusal), { detail: 'Insufficient permissions' })
  t.equal(refusal.message, 'Insufficient permissions')
  t.equal(refusal.name, 'GatewayError')
})
