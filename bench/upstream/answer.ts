/**
 * What the bench upstream answers: any request, the same ~100-byte JSON body over keep-alive.
 * Used by bench/upstream/server.ts (a process of its own) and by the allocation phase, which
 * counts the answers in the harness.
 */
import { createServer, type Server } from 'node:http'

const BODY = Buffer.from(
  JSON.stringify({ status: 'ok', service: 'bench-upstream', note: 'x'.repeat(48) }),
  'utf8',
)
const HEADERS = { 'content-type': 'application/json', 'content-length': String(BODY.length) }

/** The upstream's server, not yet listening; `onAnswer` is called for every answer. */
export function upstreamServer(onAnswer?: () => void): Server {
  const server = createServer({ keepAliveTimeout: 120_000 }, (req, res) => {
    // Drain any request body, then answer.
    req.resume()
    req.on('end', () => {
      onAnswer?.()
      res.writeHead(200, HEADERS)
      res.end(BODY)
    })
  })
  server.headersTimeout = 130_000
  server.requestTimeout = 0
  return server
}
