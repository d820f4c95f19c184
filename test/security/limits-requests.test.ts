/**
 * Resource limits on requests: the header block (`server.max_header_bytes`,
 * `server.max_headers_count`: 431) on HTTP and upgrades; the credential
 * (`auth.max_token_bytes`) for every kind, refused before it is parsed or looked up; and slow
 * clients: a head sent byte by byte is cut at `server.headers_timeout_ms`, a body the gateway
 * reads itself at `server.request_timeout_ms`. The upstream sees none of it.
 */
import { connect } from 'node:net'
import t from 'tap'
import { startRuntime } from '../helpers/runtime.js'
import { within } from '../helpers/wait.js'
import { WsClient } from '../helpers/websocket.js'
import { bearer, jwt, refused, securedGateway, send, upgrade, wsUrl } from './harness.js'

const runtime = await startRuntime(t)
const gateway = await securedGateway(t, runtime, {
  server: {
    max_header_bytes: 4_096,
    max_headers_count: 30,
    headers_timeout_ms: 300,
    request_timeout_ms: 600,
  },
  auth: { max_token_bytes: 1_024, internal_service_token: 'itok-0123456789abcdef0123456789abcdef' },
  interfaces: { workflow_websocket: { enabled: true } },
})

void t.test(
  'header block: size and count over the limits get 431, on HTTP and upgrades',
  async (t) => {
    const large = [`X-Large: ${'a'.repeat(5_000)}`]
    const many = Array.from({ length: 40 }, (_, index) => `X-F${index}: ${index}`)
    for (const [what, lines] of [
      ['one large field', large],
      ['40 fields', many],
    ] as const) {
      refused(t, await send(gateway, runtime, 'GET', '/health', lines), 431, undefined, what)
      refused(
        t,
        await upgrade(gateway, runtime, '/ws/echo', lines),
        431,
        undefined,
        `${what}, upgrade`,
      )
    }
  },
)

void t.test(
  'a credential over max_token_bytes is refused before it is parsed (svc_pat_: limits-service-accounts)',
  async (t) => {
    const long = {
      jwt: await jwt(['agents:read'], { claims: { pad: 'x'.repeat(1_100) } }),
      'scheduler-shaped': `itok-0123456789${'0'.repeat(1_100)}`,
    }
    for (const [what, token] of Object.entries(long)) {
      refused(
        t,
        await send(gateway, runtime, 'GET', '/agents/a1', [bearer(token)]),
        401,
        undefined,
        what,
      )
      refused(
        t,
        await upgrade(gateway, runtime, '/ws/echo', [bearer(token)]),
        401,
        undefined,
        `${what}, upgrade`,
      )
    }
    const socket = await WsClient.open(t, wsUrl(gateway, '/workflows/ws'))
    await socket.next()
    socket.socket.send(JSON.stringify({ action: 'authenticate', token: long.jwt }))
    t.match(JSON.parse(String((await socket.next()).data)), {
      event: 'auth_error',
      error: 'Token is too large',
    })
  },
)

/** Sends `head`, then one byte of `drip` every 50 ms; resolves with the answer once closed. */
function dribble(head: string, drip: string): Promise<string> {
  return within(
    new Promise((resolve, reject) => {
      const socket = connect(gateway.port, '127.0.0.1')
      let received = ''
      let index = 0
      const timer = setInterval(() => {
        if (socket.writable) socket.write(drip[index++ % drip.length] as string)
      }, 50)
      socket.on('connect', () => socket.write(head))
      socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')))
      socket.on('error', (error: NodeJS.ErrnoException) => {
        if (error.code !== 'ECONNRESET' && error.code !== 'EPIPE') reject(error)
      })
      socket.on('close', () => {
        clearInterval(timer)
        resolve(received)
      })
    }),
    'the gateway to cut a slow client',
  )
}

void t.test('slowloris: a head sent byte by byte is cut at headers_timeout_ms', async (t) => {
  runtime.clear()
  for (const start of [
    'GET /agents/a1 HTTP/1.1\r\nHost: h\r\n',
    'GET /ws/echo HTTP/1.1\r\nHost: h\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n',
  ]) {
    const answer = await dribble(start, 'X-Slow: aaaaaaaa\r\n')
    t.ok(
      answer === '' || /^HTTP\/1\.1 408 /.test(answer),
      `cut: ${JSON.stringify(answer.slice(0, 20))}`,
    )
  }
  t.equal(runtime.started, 0, 'the upstream saw nothing')
})

void t.test('slowloris: a body the gateway reads is cut at request_timeout_ms', async (t) => {
  runtime.clear()
  const token = await jwt(['agents:run'], { sub: 'alice' })
  for (const [path, type] of [
    ['/mcp', 'application/json'],
    ['/agents/a1/runs', 'application/x-www-form-urlencoded'],
  ]) {
    const head = `POST ${path} HTTP/1.1\r\nHost: localhost\r\n${bearer(token)}\r\nContent-Type: ${type}\r\nContent-Length: 2000\r\n\r\n`
    const answer = await dribble(head, 'x')
    t.ok(
      answer === '' || /^HTTP\/1\.1 (408|4\d\d|5\d\d) /.test(answer),
      `${path} cut: ${JSON.stringify(answer.slice(0, 20))}`,
    )
  }
  t.equal(runtime.requests.length, 0, 'the upstream never got a complete request')
})
