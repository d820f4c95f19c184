import t from 'tap'
import { createLogger } from '../../src/logger.js'
import { holdsSecret, REDACTED, redactDeep, redactSecrets } from '../../src/redact.js'
import { LogCapture } from '../helpers/log-capture.js'

const jwt = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJlLWJ5dGVz'
const serviceToken = 'svc_pat_0AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdefg1a2B3c'

void t.test('token shapes are redacted wherever they appear in text', async (t) => {
  t.equal(redactSecrets(`a ${jwt} b`), `a ${REDACTED} b`)
  t.equal(redactSecrets(`token=${serviceToken};`), `token=${REDACTED};`)
  t.equal(redactSecrets('Authorization: Bearer abc.def-ghi'), `Authorization: ${REDACTED}`)
  t.equal(redactSecrets('basic dXNlcjpwYXNz'), REDACTED)
  t.equal(redactSecrets('nothing secret /agents/a1'), 'nothing secret /agents/a1')
})

void t.test('nested objects and arrays are redacted, not mutated', async (t) => {
  const input = { a: [{ b: `x ${serviceToken}` }], c: 3 }
  t.same(redactDeep(input), { a: [{ b: `x ${REDACTED}` }], c: 3 })
  t.equal(input.a[0]?.b, `x ${serviceToken}`, 'the original is untouched')
})

void t.test(
  'errors keep their class, stack and code; message, stack and cause are redacted (regression)',
  async (t) => {
    const cause = new Error(`inner ${jwt}`)
    const error = Object.assign(new TypeError(`outer Bearer ${jwt}`, { cause }), {
      code: 'E_TOKEN',
    })
    const copy = redactDeep(error) as TypeError & { code: string }
    t.type(copy, TypeError)
    t.equal(copy.code, 'E_TOKEN')
    t.equal(copy.message, `outer ${REDACTED}`)
    t.match(copy.stack, /^TypeError: outer \[REDACTED\]\n\s+at /)
    t.equal((copy.cause as Error).message, `inner ${REDACTED}`)
    t.equal(error.message, `outer Bearer ${jwt}`, 'the original is untouched')

    const logs = new LogCapture()
    createLogger({ level: 'info', destination: logs }).error({ err: error }, 'failed')
    const record = logs.records()[0] as { err: { type: string; stack: string } }
    t.equal(record.err.type, 'TypeError', 'pino still names the class')
    t.match(record.err.stack, /at /)
    t.notOk(logs.text.includes(jwt), 'no token in the line')
  },
)

void t.test('credential fields are censored by path', async (t) => {
  const logs = new LogCapture()
  createLogger({ level: 'info', destination: logs }).info(
    { headers: { authorization: 'opaque-key', cookie: 'session=abc' }, token: 'plain' },
    'request',
  )
  t.notOk(/opaque-key|session=abc|"plain"/.test(logs.text))
})

void t.test('holdsSecret is true exactly when redactSecrets changes the text', async (t) => {
  const samples = [
    '/agents/a1',
    'trace-abc.123',
    'svc_pat_abc',
    'SVC_PAT_abc',
    'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhIn0.c2ln',
    'Bearer abc.def',
    'basic',
    '',
  ]
  for (const text of samples) t.equal(holdsSecret(text), redactSecrets(text) !== text, text)
})
