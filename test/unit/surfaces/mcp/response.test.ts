import t from 'tap'
import type { BufferedResponse } from '../../../../src/upstream/upstream-client.js'
import { mergeLocalErrors } from '../../../../src/surfaces/mcp/response.js'

const ERROR = { jsonrpc: '2.0', id: 2, error: { code: -32003, message: 'no' } }

function response(status: number, type: string | undefined, body: string): BufferedResponse {
  const headers: Record<string, string> = { 'content-length': String(body.length) }
  if (type !== undefined) headers['content-type'] = type
  return { status, headers, body: Buffer.from(body) }
}

void t.test('appended to a JSON answer', async (t) => {
  const merged = mergeLocalErrors(response(200, 'application/json', '[{"id":1}]'), [ERROR])
  t.same(JSON.parse(merged.body.toString()), [{ id: 1 }, ERROR])
  t.equal(merged.headers['content-length'], undefined, 'the length is recomputed')
  const single = mergeLocalErrors(response(200, 'application/json', '{"id":1}'), [ERROR])
  t.same(JSON.parse(single.body.toString()), [{ id: 1 }, ERROR])
})

void t.test('appended as events to an event stream', async (t) => {
  const text = 'event: message\ndata: {"id":1}\n\n'
  const merged = mergeLocalErrors(response(200, 'text/event-stream', text), [ERROR])
  t.equal(merged.body.toString(), `${text}event: message\ndata: ${JSON.stringify(ERROR)}\n\n`)
  const unterminated = mergeLocalErrors(response(200, 'text/event-stream', 'data: 1'), [ERROR])
  t.match(unterminated.body.toString(), /^data: 1\n\nevent: message\n/)
  const crlf = 'event: message\r\ndata: {"id":1}\r\n\r\n'
  const withCrlf = mergeLocalErrors(response(200, 'text/event-stream', crlf), [ERROR])
  t.equal(
    withCrlf.body.toString(),
    `${crlf}event: message\r\ndata: ${JSON.stringify(ERROR)}\r\n\r\n`,
    "sse-starlette's CRLF line ends are kept",
  )
})

void t.test('alone when the upstream had nothing to say', async (t) => {
  const merged = mergeLocalErrors(response(202, undefined, ''), [ERROR])
  t.equal(merged.status, 200)
  t.equal(merged.headers['content-type'], 'application/json')
  t.same(JSON.parse(merged.body.toString()), [ERROR])
})

void t.test('left alone when it cannot be extended', async (t) => {
  const failed = response(500, 'application/json', '{"detail":"boom"}')
  t.equal(mergeLocalErrors(failed, [ERROR]), failed)
  const encoded = {
    ...response(200, 'application/json', 'x'),
    headers: { 'content-encoding': 'gzip' },
  }
  t.equal(mergeLocalErrors(encoded, [ERROR]), encoded)
  const html = response(200, 'text/html', '<p>')
  t.equal(mergeLocalErrors(html, [ERROR]), html)
  t.equal(mergeLocalErrors(html, []), html)
})
