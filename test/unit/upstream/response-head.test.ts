/** The fields of an upstream answer as they are written to the client, in one writeHead. */
import t from 'tap'
import { responseHead } from '../../../src/upstream/streaming-response-handler.js'

const raw = (...fields: string[]): Buffer[] => fields.map((field) => Buffer.from(field, 'latin1'))

void t.test('the upstream fields in order, hop-by-hop ones left out, X-Request-Id first', (t) => {
  const head = responseHead(
    raw(
      'Content-Type',
      'application/json',
      'Connection',
      'keep-alive',
      'Keep-Alive',
      'timeout=5',
      'Transfer-Encoding',
      'chunked',
      'TE',
      'trailers',
      'Set-Cookie',
      'a=1',
      'set-cookie',
      'b=2',
      'Content-Length',
      '2',
    ),
    'req-1',
  )
  t.same(
    head.fields,
    [
      'x-request-id',
      'req-1',
      'content-type',
      'application/json',
      'set-cookie',
      'a=1',
      'set-cookie',
      'b=2',
      'content-length',
      '2',
    ],
    'common fields under their lowercase names, as uvicorn writes them',
  )
  t.equal(head.eventStream, false)
  t.end()
})

void t.test('fields the Connection header lists are hop-by-hop too, in any case', (t) => {
  const head = responseHead(
    raw('Connection', 'X-Trace, close', 'x-trace', 'secret', 'X-Other', 'kept'),
    'req-2',
  )
  t.same(head.fields, ['x-request-id', 'req-2', 'X-Other', 'kept'])
  t.end()
})

void t.test("the upstream's own X-Request-Id is answered instead of the gateway's", (t) => {
  const head = responseHead(raw('X-Request-ID', 'upstream-id', 'Vary', 'Origin'), 'req-3')
  t.same(head.fields, ['x-request-id', 'upstream-id', 'vary', 'Origin'])
  t.end()
})

void t.test('an event stream is recognised by its Content-Type, whatever the case', (t) => {
  t.equal(
    responseHead(raw('content-type', 'Text/Event-Stream; charset=utf-8'), 'r').eventStream,
    true,
  )
  t.equal(responseHead(raw('Content-Type', 'text/plain'), 'r').eventStream, false)
  t.end()
})

void t.test('hop-by-hop names in any case; names of their length that are others are kept', (t) => {
  const head = responseHead(
    raw(
      'KEEP-ALIVE',
      'timeout=5',
      'Proxy-Connection',
      'keep-alive',
      'upgrade',
      'h2c',
      'X-Trace-Id', // the length of Connection and Keep-Alive
      't1',
      'Transfer_Encoding', // `_` is not `-`
      'x',
      'conn\u00c9ction', // a letter outside ASCII is not folded
      'y',
      'X-Request-Ie',
      'z',
    ),
    'req-4',
  )
  t.same(head.fields, [
    'x-request-id',
    'req-4',
    'X-Trace-Id',
    't1',
    'Transfer_Encoding',
    'x',
    'conn\u00c9ction',
    'y',
    'X-Request-Ie',
    'z',
  ])
  t.end()
})

void t.test(
  'a field the Connection header lists is left out, X-Request-Id and Content-Type too',
  (t) => {
    const head = responseHead(
      raw(
        'Content-Type',
        'text/event-stream',
        'X-Request-Id',
        'upstream-id',
        'CONNECTION',
        'X-Request-ID, content-type',
        'Vary',
        'Origin',
      ),
      'req-5',
    )
    t.same(head.fields, ['x-request-id', 'req-5', 'vary', 'Origin'], "the gateway's id stays")
    t.equal(head.eventStream, false, 'a Content-Type left out says nothing of the body')
    t.end()
  },
)

void t.test('fields listed by any Connection header, before or after it, are left out', (t) => {
  const head = responseHead(
    raw('X-A', '1', 'Connection', 'x-a', 'X-B', '2', 'connection', 'X-B', 'X-C', '3'),
    'req-6',
  )
  t.same(head.fields, ['x-request-id', 'req-6', 'X-C', '3'])
  t.end()
})

void t.test('any other field keeps the upstream spelling of its name', (t) => {
  const head = responseHead(
    raw('X-Trace-Id', 't', 'X-RateLimit-Remaining', '9', 'DATE', 'Mon', 'Server', 'uvicorn'),
    'req-7',
  )
  t.same(head.fields, [
    'x-request-id',
    'req-7',
    'X-Trace-Id',
    't',
    'X-RateLimit-Remaining',
    '9',
    'date',
    'Mon',
    'server',
    'uvicorn',
  ])
  t.end()
})
