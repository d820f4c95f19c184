/**
 * The minimal upstream every scenario uses: answers any request with the same ~100-byte JSON body
 * over keep-alive (bench/upstream/answer.ts). Run: node --import tsx bench/upstream/server.ts <port>
 */
import { upstreamServer } from './answer.js'

const port = Number(process.argv[2])
if (!Number.isInteger(port) || port <= 0) {
  process.stderr.write('usage: server.ts <port>\n')
  process.exit(2)
}

const server = upstreamServer()
server.listen(port, '127.0.0.1', () => process.stdout.write(`listening ${port}\n`))
process.on('SIGTERM', () => server.close(() => process.exit(0)))
