/**
 * The floor of a Koa gateway: the bare Node proxy's relay (node:http + undici, no logic) run as
 * Koa middleware, with an error middleware in front as Portcullis has. `/local-401` is answered by
 * the app itself, from an error thrown by a middleware and turned into `{"detail": …}`, as
 * Portcullis answers a request without a credential; `/local-401-set` is the same answer set on
 * the response by the middleware itself, nothing thrown. Run:
 * node --import tsx bench/upstream/koa-proxy.ts <port> <upstream-url>
 */
import { createServer } from 'node:http'
import Koa from 'koa'
import { Pool } from 'undici'
import { Relay } from './relay.js'

const port = Number(process.argv[2])
const upstreamUrl = process.argv[3]
if (!Number.isInteger(port) || port <= 0 || upstreamUrl === undefined) {
  process.stderr.write('usage: koa-proxy.ts <port> <upstream-url>\n')
  process.exit(2)
}

const pool = new Pool(upstreamUrl, { connections: 128, pipelining: 1 })
const LOCAL_401_PATH = '/local-401'
const LOCAL_401_SET_PATH = '/local-401-set'

class Refusal extends Error {}

const app = new Koa()
app.use(async (ctx, next) => {
  try {
    await next()
  } catch (error) {
    ctx.status = 401
    ctx.set('www-authenticate', 'Bearer')
    ctx.body = { detail: (error as Error).message }
  }
})
app.use(async (ctx) => {
  if (ctx.path === LOCAL_401_SET_PATH) {
    ctx.status = 401
    ctx.set('www-authenticate', 'Bearer')
    ctx.body = { detail: 'Not authenticated' }
    return
  }
  if (ctx.path === LOCAL_401_PATH) {
    // Without a stack, as Portcullis's refusals.
    const limit = Error.stackTraceLimit
    Error.stackTraceLimit = 0
    const refusal = new Refusal('Not authenticated')
    Error.stackTraceLimit = limit
    throw refusal
  }
  ctx.respond = false
  await new Promise<void>((resolve) => {
    pool.dispatch(
      { method: ctx.method, path: ctx.url, headers: ctx.req.rawHeaders, body: null },
      new Relay(ctx.res, resolve),
    )
  })
})

const handle = app.callback()
const server = createServer({ keepAliveTimeout: 120_000 }, (req, res) => void handle(req, res))
server.listen(port, '127.0.0.1', () => process.stdout.write(`listening ${port}\n`))
process.on('SIGTERM', () => server.close(() => process.exit(0)))
