/**
 * The floor of any Node proxy on this machine: node:http in front of an undici pool, forwarding
 * every request and streaming the answer back, with no other work at all (no routing, auth,
 * logging or metrics). Portcullis uses the same two pieces, so its cost per request is this plus
 * its own work. Run: node --import tsx bench/upstream/bare-proxy.ts <port> <upstream-url>
 */
import { createServer } from 'node:http'
import { Pool } from 'undici'
import { Relay } from './relay.js'

const port = Number(process.argv[2])
const upstreamUrl = process.argv[3]
if (!Number.isInteger(port) || port <= 0 || upstreamUrl === undefined) {
  process.stderr.write('usage: bare-proxy.ts <port> <upstream-url>\n')
  process.exit(2)
}

const pool = new Pool(upstreamUrl, { connections: 128, pipelining: 1 })

const server = createServer({ keepAliveTimeout: 120_000 }, (req, res) => {
  req.resume()
  pool.dispatch(
    { method: req.method ?? 'GET', path: req.url ?? '/', headers: req.rawHeaders, body: null },
    new Relay(res),
  )
})
server.listen(port, '127.0.0.1', () => process.stdout.write(`listening ${port}\n`))
process.on('SIGTERM', () => server.close(() => process.exit(0)))
