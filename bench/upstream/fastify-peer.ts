/**
 * The peer a Node user would write instead of Portcullis for a JWT-checking proxy: Fastify with
 * @fastify/jwt (RS256 against one public key, its verified-token cache on) in front of
 * @fastify/reply-from (undici), no logging. Every request needs a valid token. Run:
 * node --import tsx bench/upstream/fastify-peer.ts <port> <upstream-url> <rs256-public-key.pem>
 */
import { readFileSync } from 'node:fs'
import fastifyJwt from '@fastify/jwt'
import replyFrom from '@fastify/reply-from'
import Fastify from 'fastify'

const port = Number(process.argv[2])
const upstreamUrl = process.argv[3]
const keyFile = process.argv[4]
if (!Number.isInteger(port) || port <= 0 || upstreamUrl === undefined || keyFile === undefined) {
  process.stderr.write('usage: fastify-peer.ts <port> <upstream-url> <rs256-public-key.pem>\n')
  process.exit(2)
}

const app = Fastify({ logger: false, keepAliveTimeout: 120_000 })
await app.register(fastifyJwt, {
  secret: { public: readFileSync(keyFile, 'utf8') },
  verify: { algorithms: ['RS256'], cache: true },
})
await app.register(replyFrom, {
  base: upstreamUrl,
  undici: { connections: 128, pipelining: 1 },
})
app.addHook('onRequest', async (request) => {
  await request.jwtVerify()
})
app.all('/*', (request, reply) => reply.from(request.url))

await app.listen({ port, host: '127.0.0.1' })
process.stdout.write(`listening ${port}\n`)
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)))
