import t from 'tap'
import { errorBody, GatewayError, toGatewayError } from '../../src/errors.js'

void t.test('a refusal carries no stack; a fault keeps its stack', async (t) => {
  const refusal = new GatewayError('TOKEN_INVALID', 'Invalid authentication token', {
    reason: 'security_key.mismatch',
  })
  t.equal(refusal.status, 401)
  t.ok(refusal instanceof Error, 'still an Error to every reader')
  t.notMatch(refusal.stack ?? '', /\n\s+at /, 'no frames captured for a 401')
  const cause = new Error('connect ECONNREFUSED')
  const fault = new GatewayError('UPSTREAM_UNAVAILABLE', 'Upstream unavailable', {
    reason: 'upstream.refused',
    cause,
  })
  t.match(fault.stack ?? '', /^GatewayError: Upstream unavailable\n\s+at /, 'a 5xx keeps its stack')
  t.equal(fault.cause, cause)
  t.notOk('cause' in refusal, 'no cause given, none set')
  t.match(toGatewayError(new Error('boom')).stack ?? '', /\n\s+at /)
  t.same(Object.keys(refusal).includes('message'), false, 'message is not enumerable, as on Error')
  t.equal(String(refusal), 'GatewayError: Invalid authentication token')
})

void t.test('building errors never touches the process-wide Error.stackTraceLimit', async (t) => {
  const original = Object.getOwnPropertyDescriptor(Error, 'stackTraceLimit')
  const restore = () => {
    if (original !== undefined) Object.defineProperty(Error, 'stackTraceLimit', original)
  }
  t.teardown(restore)
  const build = () => {
    for (const code of ['TOKEN_INVALID', 'ACCESS_DENIED', 'THROTTLED', 'INTERNAL'] as const) {
      void new GatewayError(code, 'x', { reason: 'internal' })
    }
    return toGatewayError(new Error('boom'))
  }
  // Every write is counted (V8 captures no stack while the limit is an accessor: no assertion
  // runs in between).
  let writes = 0
  Object.defineProperty(Error, 'stackTraceLimit', {
    configurable: true,
    get: () => 10,
    set: () => (writes += 1),
  })
  build()
  restore()
  t.equal(writes, 0, 'no refusal or fault wrote the limit')
  Error.stackTraceLimit = 37
  const fault = build()
  t.equal(Error.stackTraceLimit, 37, 'a sentinel value survives')
  t.match(fault.stack ?? '', /\n\s+at /, 'a fault still carries its stack')
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
