import { once } from 'node:events'
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import t, { type Test } from 'tap'
import { Pool } from 'undici'
import { Relay } from '../../../bench/upstream/relay.js'

async function listen(handler: (req: IncomingMessage, res: ServerResponse) => void) {
  const server = createServer(handler)
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  return { server, port: (server.address() as AddressInfo).port }
}

/**
 * An upstream answering with `handler`, and a proxy relaying to it over one upstream connection
 * (a stalled one would block every later request); both closed when the test ends.
 */
async function relayed(t: Test, handler: (req: IncomingMessage, res: ServerResponse) => void) {
  const upstream = await listen(handler)
  const pool = new Pool(`http://127.0.0.1:${upstream.port}`, { connections: 1 })
  const proxied: ServerResponse[] = []
  const proxy = await listen((req, res) => {
    proxied.push(res)
    pool.dispatch(
      { method: 'GET', path: req.url ?? '/', headers: req.rawHeaders, body: null },
      new Relay(res),
    )
  })
  t.teardown(async () => {
    await pool.destroy()
    for (const { server } of [upstream, proxy]) {
      server.closeAllConnections()
      server.close()
    }
  })
  return { port: proxy.port, proxied }
}

function get(
  port: number,
  path: string,
): Promise<{ status: number; headers: IncomingMessage['headers']; body: string }> {
  return new Promise((resolve, reject) => {
    request({ port, host: '127.0.0.1', path }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => (body += chunk))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }))
    })
      .on('error', reject)
      .end()
  })
}

void t.test(
  'a client that leaves before the answer does not stall the floor’s upstream connection',
  async (t) => {
    // The upstream holds the first request until its client has gone, then answers it.
    let releaseFirst: (() => void) | undefined
    const firstArrived = new Promise<void>((resolve) => {
      releaseFirst = resolve
    })
    let held: ServerResponse | undefined
    const proxy = await relayed(t, (req, res) => {
      if (req.url === '/held') {
        held = res
        releaseFirst?.()
        return
      }
      res.writeHead(200, { 'content-type': 'text/plain' })
      res.end('fine')
    })

    const leaving = request({ port: proxy.port, host: '127.0.0.1', path: '/held' })
    leaving.on('error', () => {})
    leaving.end()
    await firstArrived
    const gone = once(proxy.proxied[0] as ServerResponse, 'close')
    leaving.destroy()
    await gone
    // The upstream now answers the request whose client is gone, in more than one piece.
    held?.writeHead(200, { 'content-type': 'text/plain' })
    held?.write('x'.repeat(64 * 1024))
    held?.end('end')

    const next = await get(proxy.port, '/ok')
    t.same([next.status, next.body], [200, 'fine'], 'the next request is answered')
  },
)

void t.test('the answer is relayed whole, without its hop-by-hop fields', async (t) => {
  const proxy = await relayed(t, (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain', 'keep-alive': 'timeout=77' })
    res.end('y'.repeat(200_000))
  })
  const answer = await get(proxy.port, '/')
  t.equal(answer.body.length, 200_000)
  t.equal(answer.headers['content-type'], 'text/plain')
  t.not(answer.headers['keep-alive'], 'timeout=77', 'the upstream’s keep-alive is not relayed')
})
