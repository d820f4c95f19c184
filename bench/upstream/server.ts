/**
 * The minimal upstream every scenario uses: answers any request with the same ~100-byte JSON body
 * over keep-alive. Run: node --import tsx bench/upstream/server.ts <port>
 */
import { createServer } from 'node:http'

const BODY = Buffer.from(
  JSON.stringify({ status: 'ok', service: 'bench-upstream', note: 'x'.repeat(48) }),
  'utf8',
)
const HEADERS = { 'content-type': 'application/json', 'content-length': String(BODY.length) }

const port = Number(process.argv[2])
if (!Number.isInteger(port) || port <= 0) {
  process.stderr.write('usage: server.ts <port>\n')
  process.exit(2)
}

const server = createServer({ keepAliveTimeout: 120_000 }, (req, res) => {
  // Drain any request body, then answer.
  req.resume()
  req.on('end', () => {
    res.writeHead(200, HEADERS)
    res.end(BODY)
  })
})
server.headersTimeout = 130_000
server.requestTimeout = 0
server.listen(port, '127.0.0.1', () => process.stdout.write(`listening ${port}\n`))
process.on('SIGTERM', () => server.close(() => process.exit(0)))
