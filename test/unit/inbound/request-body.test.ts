/**
 * The one bounded body reader and the one `hasBody`, on the cases the two former copies read
 * differently: a length of "00", pausing (not draining) past the bound, one reason for each refusal.
 */
import { PassThrough, Readable } from 'node:stream'
import t from 'tap'
import { GatewayError } from '../../../src/errors.js'
import { hasBody, readBoundedBody } from '../../../src/inbound/request-body.js'

async function refusalOf(promise: Promise<unknown>): Promise<GatewayError> {
  try {
    await promise
  } catch (error) {
    if (error instanceof GatewayError) return error
    throw error
  }
  throw new Error('expected a refusal')
}

void t.test(
  'hasBody: a zero length in any spelling is no body; chunked always is one',
  async (t) => {
    t.notOk(hasBody({}))
    t.notOk(hasBody({ 'content-length': '0' }))
    t.notOk(hasBody({ 'content-length': '00' }), '"00" is zero, as Node parses it')
    t.notOk(hasBody({ 'content-length': '000' }))
    t.ok(hasBody({ 'content-length': '1' }))
    t.ok(hasBody({ 'content-length': '010' }))
    t.ok(hasBody({ 'transfer-encoding': 'chunked' }))
    t.ok(hasBody({ 'transfer-encoding': 'chunked', 'content-length': '0' }))
  },
)

void t.test('reads a body within the bound, in one piece or many', async (t) => {
  t.same(await readBoundedBody(Readable.from([Buffer.from('abc')]), 3), Buffer.from('abc'))
  t.same(
    await readBoundedBody(Readable.from([Buffer.from('ab'), Buffer.from('c')]), 3, '3'),
    Buffer.from('abc'),
  )
  t.same(await readBoundedBody(Readable.from([]), 0), Buffer.alloc(0))
})

void t.test('a declared length past the bound is refused before reading a byte', async (t) => {
  const stream = new PassThrough()
  const error = await refusalOf(readBoundedBody(stream, 10, '11'))
  t.match(error, { status: 413, detail: 'Request body too large', reason: 'body.too_large' })
  t.equal(stream.readableFlowing, null, 'never read')
})

void t.test('past the bound: 413, and the rest is left unread (paused), not drained', async (t) => {
  const stream = new PassThrough()
  const reading = readBoundedBody(stream, 4)
  stream.write(Buffer.from('abc'))
  stream.write(Buffer.from('def'))
  const error = await refusalOf(reading)
  t.match(error, { status: 413, reason: 'body.too_large' })
  t.ok(stream.isPaused(), 'paused: the client is not read any further')
  t.notOk(stream.destroyed, 'not destroyed: the 413 can still reach the client')
  stream.write(Buffer.from('more'))
  t.equal(stream.listenerCount('data'), 0, 'nothing reads what comes next')
  t.ok(stream.readableLength > 0, 'it waits in the stream')
})

void t.test('a stream that fails is a 400 with its own reason', async (t) => {
  const stream = new PassThrough()
  const reading = readBoundedBody(stream, 100)
  stream.destroy(new Error('socket hang up'))
  t.match(await refusalOf(reading), {
    status: 400,
    detail: 'Request body could not be read',
    reason: 'body.unreadable',
  })
})
