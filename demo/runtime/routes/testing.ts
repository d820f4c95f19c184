/** Helpers for exercising a proxy: slowness, arbitrary statuses, dropped sockets, streams, sizes. */
import { once } from 'node:events'
import { STATUS_CODES } from 'node:http'
import type { RequestContext } from '../context.js'
import { queryParam } from '../params.js'
import { sendDetail, sendEmpty, sendJson, sleep, startSse } from '../respond.js'
import type { Router } from '../router.js'

const CHUNK = Buffer.alloc(64 * 1024, 'x')

function intParam(ctx: RequestContext, key: string, fallback: number, max: number): number {
  const value = Number.parseInt(queryParam(ctx, key) ?? '', 10)
  return Number.isInteger(value) && value >= 0 ? Math.min(value, max) : fallback
}

async function slow(ctx: RequestContext): Promise<void> {
  const ms = intParam(ctx, 'ms', 1000, 600_000)
  if (await sleep(ms, ctx.signal)) sendJson(ctx.res, 200, { slept_ms: ms })
}

function status(ctx: RequestContext): void {
  const code = Number(ctx.params['code'])
  if (!Number.isInteger(code) || code < 200 || code > 599) {
    return sendDetail(ctx.res, 400, 'status code must be between 200 and 599')
  }
  if (code === 204 || code === 205 || code === 304) return sendEmpty(ctx.res, code)
  sendJson(ctx.res, code, { status: code, detail: STATUS_CODES[code] ?? 'Custom status' })
}

async function stream(ctx: RequestContext): Promise<void> {
  const total = intParam(ctx, 'events', 5, 10_000)
  const interval = intParam(ctx, 'interval_ms', ctx.app.settings.sseIntervalMs, 60_000)
  const sse = startSse(ctx.res)
  for (let index = 0; index < total; index += 1) {
    if (index > 0 && !(await sleep(interval, ctx.signal))) return
    sse.send({ index, total }, 'tick')
  }
  sse.end()
}

function upload(ctx: RequestContext): void {
  const { bytes, sha256, files } = ctx.body
  sendJson(ctx.res, 200, files === undefined ? { bytes, sha256 } : { bytes, sha256, files })
}

async function big(ctx: RequestContext): Promise<void> {
  const total = intParam(ctx, 'bytes', 1024 * 1024, Number.MAX_SAFE_INTEGER)
  ctx.res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': total })
  for (let left = total; left > 0;) {
    if (ctx.signal.aborted) return
    const part = left >= CHUNK.length ? CHUNK : CHUNK.subarray(0, left)
    left -= part.length
    if (ctx.res.write(part)) continue
    try {
      await once(ctx.res, 'drain', { signal: ctx.signal })
    } catch {
      return
    }
  }
  ctx.res.end()
}

export function registerTestingRoutes(router: Router): void {
  router
    .add('GET', '/slow', slow)
    .add('GET', '/status/{code}', status)
    .add('GET', '/destroy', (ctx) => {
      ctx.req.socket.destroy()
    })
    .add('GET', '/stream', stream)
    .add('POST', '/upload', upload, { streamBody: true })
    .add('GET', '/big', big)
}
