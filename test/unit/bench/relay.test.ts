import { once } from 'node:events'
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import { Pool } from 'undici'
import { Relay } from '../../../bench/upstream/relay.js'

async function listen(handler: (req: IncomingMessage, res: ServerResponse) => void) {
  const server = createServer(handler)
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  return { server, port: (server.address() as AddressInfo).port }
}

function get(port: number): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    request({ port, host: '127.0.0.1', path: '/ok' }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => (body += chunk))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
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
    const upstream = await listen((req, res) => {
      if (req.url === '/held') {
        held = res
        releaseFirst?.()
        return
      }
      res.writeHead(200, { 'content-type': 'text/plain' })
      res.end('fine')
    })
    // One upstream connection: a stalled one would block every later request.
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
      upstream.server.closeAllConnections()
      proxy.server.closeAllConnections()
      upstream.server.close()
      proxy.server.close()
    })

    const leaving = request({ port: proxy.port, host: '127.0.0.1', path: '/held' })
    leaving.on('error', () => {})
    leaving.end()
    await firstArrived
    const gone = once(proxied[0] as ServerResponse, 'close')
    leaving.destroy()
    await gone
    // The upstream now answers the request whose client is gone, in more than one piece.
    held?.writeHead(200, { 'content-type': 'text/plain' })
    held?.write('x'.repeat(64 * 1024))
    held?.end('end')

    t.same(await get(proxy.port), { status: 200, body: 'fine' }, 'the next request is answered')
  },
)

void t.test('the answer is relayed whole, without its hop-by-hop fields', async (t) => {
  const upstream = await listen((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain', 'keep-alive': 'timeout=77' })
    res.end('y'.repeat(200_000))
  })
  const pool = new Pool(`http://127.0.0.1:${upstream.port}`, { connections: 1 })
  const proxy = await listen((req, res) => {
    pool.dispatch(
      { method: 'GET', path: req.url ?? '/', headers: req.rawHeaders, body: null },
      new Relay(res),
    )
  })
  t.teardown(async () => {
    await pool.destroy()
    upstream.server.close()
    proxy.server.closeAllConnections()
    proxy.server.close()
  })
  const answer = await new Promise<{ headers: IncomingMessage['headers']; length: number }>(
    (resolve, reject) => {
      request({ port: proxy.port, host: '127.0.0.1', path: '/' }, (res) => {
        let length = 0
        res.on('data', (chunk: Buffer) => (length += chunk.length))
        res.on('end', () => resolve({ headers: res.headers, length }))
      })
        .on('error', reject)
        .end()
    },
  )
  t.equal(answer.length, 200_000)
  t.equal(answer.headers['content-type'], 'text/plain')
  t.not(answer.headers['keep-alive'], 'timeout=77', 'the upstream’s keep-alive is not relayed')
})
