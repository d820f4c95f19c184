import { connect } from 'node:net'
import t from 'tap'
import { startFoundationGateway } from '../../helpers/foundation.js'
import { rawExchange } from '../../helpers/raw-http.js'
import { startRuntime } from '../../helpers/runtime.js'
import { within } from '../../helpers/wait.js'

/**
 * Sends `head` and then one byte of `drip` every `everyMs`, never finishing; resolves with what
 * the gateway answered once it closes the connection.
 */
function dribble(port: number, head: string, drip: string, everyMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1')
    let received = ''
    let index = 0
    let timer: NodeJS.Timeout | undefined
    socket.on('connect', () => {
      socket.write(head)
      timer = setInterval(() => {
        if (socket.writable) socket.write(drip[index++ % drip.length] as string)
      }, everyMs)
    })
    socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')))
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'ECONNRESET' && error.code !== 'EPIPE') reject(error)
    })
    socket.on('close', () => {
      clearInterval(timer)
      resolve(received)
    })
  })
}

void t.test(
  'a client sending its headers byte by byte is cut after headers_timeout_ms',
  async (t) => {
    const runtime = await startRuntime(t)
    const gateway = await startFoundationGateway(t, {
      upstream: { url: runtime.url },
      server: { headers_timeout_ms: 500 },
    })
    const received = await within(
      dribble(
        gateway.port,
        'GET /echo HTTP/1.1\r\nHost: portcullis.test\r\n',
        'X-Slow: aaaaaaaaaa\r\n',
        100,
      ),
      'the gateway to cut the slow client',
      10_000,
    )
    t.ok(
      received === '' || /^HTTP\/1\.1 408 /.test(received),
      `408 or closed (got ${JSON.stringify(received.slice(0, 40))})`,
    )
    t.equal(runtime.started, 0, 'the upstream saw nothing')
  },
)

void t.test('a client sending its body byte by byte is cut after request_timeout_ms', async (t) => {
  const runtime = await startRuntime(t)
  const gateway = await startFoundationGateway(t, {
    upstream: { url: runtime.url },
    server: { headers_timeout_ms: 500, request_timeout_ms: 1_000 },
  })
  const received = await within(
    dribble(
      gateway.port,
      'POST /echo HTTP/1.1\r\nHost: portcullis.test\r\nContent-Length: 100000\r\n\r\n',
      'x',
      100,
    ),
    'the gateway to cut the slow body',
    10_000,
  )
  t.ok(
    received === '' || /^HTTP\/1\.1 (408|5\d\d) /.test(received),
    `cut (got ${JSON.stringify(received.slice(0, 40))})`,
  )
  t.equal(runtime.requests.length, 0, 'the upstream never got a complete request')
})

void t.test('a header block over max_header_bytes gets 431', async (t) => {
  const runtime = await startRuntime(t)
  const gateway = await startFoundationGateway(t, {
    upstream: { url: runtime.url },
    server: { max_header_bytes: 2048 },
  })
  const fits = await rawExchange(
    gateway.port,
    `GET /echo HTTP/1.1\r\nHost: h\r\nX-Big: ${'a'.repeat(1500)}\r\n\r\n`,
  )
  t.equal(fits.status, 200, 'under the limit passes')
  const before = runtime.started
  const one = await rawExchange(
    gateway.port,
    `GET /echo HTTP/1.1\r\nHost: h\r\nX-Big: ${'a'.repeat(4000)}\r\n\r\n`,
  )
  t.equal(one.status, 431, 'one large field')
  t.same(JSON.parse(one.body), { detail: 'Request Header Fields Too Large' })
  const many = await rawExchange(
    gateway.port,
    `GET /echo HTTP/1.1\r\nHost: h\r\n${Array.from({ length: 10 }, (_, i) => `X-F${i}: ${'b'.repeat(300)}\r\n`).join('')}\r\n`,
  )
  t.equal(many.status, 431, 'many medium fields')
  t.equal(runtime.started, before, 'the upstream saw neither')
})

void t.test('more than max_headers_count fields gets 431', async (t) => {
  const runtime = await startRuntime(t)
  const gateway = await startFoundationGateway(t, {
    upstream: { url: runtime.url },
    server: { max_headers_count: 20 },
  })
  const fields = (count: number): string =>
    `GET /echo HTTP/1.1\r\nHost: h\r\n${Array.from({ length: count - 1 }, (_, i) => `X-F${i}: ${i}\r\n`).join('')}\r\n`
  t.equal((await rawExchange(gateway.port, fields(20))).status, 200, 'exactly 20 fields pass')
  const before = runtime.started
  for (const count of [21, 50, 200]) {
    const response = await rawExchange(gateway.port, fields(count))
    t.equal(response.status, 431, `${count} fields`)
    t.same(JSON.parse(response.body), { detail: 'Request header fields too large' })
  }
  t.equal(runtime.started, before, 'the upstream saw none of them')
})

const smuggling: [name: string, request: string][] = [
  [
    'Content-Length with Transfer-Encoding',
    'POST /echo HTTP/1.1\r\nHost: h\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
  ],
  [
    'Transfer-Encoding with Content-Length',
    'POST /echo HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\nContent-Length: 4\r\n\r\n0\r\n\r\n',
  ],
  [
    'two differing Content-Length fields',
    'POST /echo HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!',
  ],
  ['a Content-Length list', 'POST /echo HTTP/1.1\r\nHost: h\r\nContent-Length: 5, 6\r\n\r\nhello!'],
  ['a negative Content-Length', 'POST /echo HTTP/1.1\r\nHost: h\r\nContent-Length: -1\r\n\r\n'],
  ['an obs-fold continuation line', 'GET /echo HTTP/1.1\r\nHost: h\r\nX-A: a\r\n b\r\n\r\n'],
  [
    'a folded Transfer-Encoding',
    'POST /echo HTTP/1.1\r\nHost: h\r\nTransfer-Encoding:\r\n chunked\r\n\r\n0\r\n\r\n',
  ],
  ['bare LF line endings', 'GET /echo HTTP/1.1\nHost: h\n\n'],
  ['a bare LF inside the head', 'GET /echo HTTP/1.1\r\nHost: h\nX-A: 1\r\n\r\n'],
  ['a bare CR inside the head', 'GET /echo HTTP/1.1\r\nHost: h\rX-A: 1\r\n\r\n'],
  [
    'chunked not last',
    'POST /echo HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked, identity\r\n\r\n0\r\n\r\n',
  ],
  [
    'an unknown transfer coding',
    'POST /echo HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: xchunked\r\n\r\n0\r\n\r\n',
  ],
  [
    'whitespace before the colon',
    'POST /echo HTTP/1.1\r\nHost: h\r\nTransfer-Encoding : chunked\r\n\r\n0\r\n\r\n',
  ],
  ['a NUL in a field value', 'GET /echo HTTP/1.1\r\nHost: h\r\nX-A: a\0b\r\n\r\n'],
  [
    'an invalid chunk size',
    'POST /echo HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n',
  ],
  ['no Host in HTTP/1.1', 'GET /echo HTTP/1.1\r\nX-A: 1\r\n\r\n'],
]

void t.test(
  'request smuggling forms are refused with 400 and never reach the upstream',
  async (t) => {
    const runtime = await startRuntime(t)
    const gateway = await startFoundationGateway(t, { upstream: { url: runtime.url } })
    for (const [name, request] of smuggling) {
      const before = runtime.started
      const response = await rawExchange(gateway.port, request)
      t.equal(response.status, 400, name)
      t.equal(response.headers.connection, 'close', `${name}: the connection is not reused`)
      t.equal(runtime.started, before, `${name}: the upstream saw nothing`)
    }
    // The same connection handling with a valid chunked body works.
    const valid = await rawExchange(
      gateway.port,
      'POST /echo HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n5;ext=1\r\nhello\r\n0\r\n\r\n',
    )
    t.equal(valid.status, 200)
    t.match(JSON.parse(valid.body), { bodyBytes: 5 })
  },
)

void t.test('a request with two Host fields is refused (RFC 9112 section 3.2)', async (t) => {
  const runtime = await startRuntime(t)
  for (const preserve_host of [false, true]) {
    const gateway = await startFoundationGateway(t, {
      upstream: { url: runtime.url, preserve_host },
    })
    const response = await rawExchange(
      gateway.port,
      'GET /echo HTTP/1.1\r\nHost: public.example\r\nHost: internal.example\r\n\r\n',
    )
    t.equal(response.status, 400, `preserve_host ${preserve_host}: 400`)
  }
  t.equal(runtime.started, 0, 'the upstream saw nothing')
})
