/** The request's id: a trusted proxy's well-formed one kept, else a new random UUID. */
import t from 'tap'
import { chooseRequestId, newRequestId } from '../../../src/inbound/request-id.js'

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

void t.test('a new id is a version 4 UUID, as crypto.randomUUID makes', (t) => {
  // Past one batch of the random pool, so that refilling it is covered too.
  const seen = new Set<string>()
  for (let index = 0; index < 1_000; index++) {
    const id = newRequestId()
    if (!UUID_V4.test(id)) t.fail(`not a version 4 UUID: ${id}`)
    seen.add(id)
  }
  t.equal(seen.size, 1_000, 'no id repeats')
  t.end()
})

void t.test('every hex digit of a new id varies (none is fixed by the writing)', (t) => {
  const digits = Array.from({ length: 36 }, () => new Set<string>())
  for (let index = 0; index < 2_000; index++) {
    const id = newRequestId()
    for (let at = 0; at < id.length; at++) digits[at]?.add(id[at] as string)
  }
  const sizes = digits.map((set) => set.size)
  for (const dash of [8, 13, 18, 23]) t.equal(sizes[dash], 1, `a dash at ${dash}`)
  t.equal(sizes[14], 1, 'the version digit is 4')
  t.equal(sizes[19], 4, 'the variant digit is one of 8, 9, a, b')
  for (let at = 0; at < 36; at++) {
    if ([8, 13, 18, 23, 14, 19].includes(at)) continue
    if (sizes[at] !== 16) t.fail(`digit ${at} took ${sizes[at]} values of 16`)
  }
  t.end()
})

void t.test("a trusted proxy's well-formed id is kept; anyone else's is replaced", (t) => {
  t.equal(chooseRequestId('trace-1:abc', true), 'trace-1:abc')
  t.match(chooseRequestId('trace-1:abc', false), UUID_V4)
  t.match(chooseRequestId('bad id with spaces', true), UUID_V4)
  t.match(chooseRequestId(['a', 'b'], true), UUID_V4)
  t.match(chooseRequestId('x'.repeat(129), true), UUID_V4)
  // Well-formed but token-shaped: a service-account token, a JWT.
  t.match(
    chooseRequestId('svc_pat_0AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdefg1a2B3c', true),
    UUID_V4,
  )
  t.match(chooseRequestId('eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhIn0.c2ln', true), UUID_V4)
  t.equal(chooseRequestId('svc_pat', true), 'svc_pat', 'only a token shape is refused')
  t.end()
})
