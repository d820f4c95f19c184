import { performance } from 'node:perf_hooks'
import type { Next } from 'koa'
import { hasBody } from '../../inbound/request-body.js'
import type { Metrics } from '../../metrics.js'
import type { UpstreamClient, UpstreamRequest } from '../upstream-client.js'
import { buildUpstreamHeaders, type UpstreamHeaderOptions } from '../upstream-headers.js'
import type { GatewayContext } from '../state.js'

const BUFFERED_RESPONSE_LIMIT = 16 * 1024 * 1024

/** The end of the chain: sends the canonical request upstream and streams the answer back. */
export function forward(deps: {
  upstream: UpstreamClient
  headerOptions: UpstreamHeaderOptions
  metrics: Metrics
}) {
  const { upstream, headerOptions, metrics } = deps
  return async function forwardMiddleware(ctx: GatewayContext, _next: Next): Promise<void> {
    const state = ctx.state
    const req = ctx.req
    const headers = buildUpstreamHeaders(
      req.rawHeaders,
      headerOptions,
      state.inbound,
      state.upstreamHeaders,
    )
    const query = state.upstreamQuery ?? state.inbound.query
    const rewritten = state.upstreamBody
    if (rewritten !== undefined) replaceBodyHeaders(headers, rewritten.body, rewritten.contentType)
    const request: UpstreamRequest = {
      method: ctx.method,
      path: query === '' ? state.inbound.forwardPath : `${state.inbound.forwardPath}?${query}`,
      headers,
      body: rewritten?.body ?? (hasBody(req.headers) ? req : null),
    }

    const sentAt = performance.now()
    const route = state.route
    if (state.rewriteResponse !== undefined) {
      const response = state.rewriteResponse(await upstream.fetch(request, BUFFERED_RESPONSE_LIMIT))
      metrics.observeUpstream(route, (performance.now() - sentAt) / 1000)
      ctx.status = response.status
      for (const [name, value] of Object.entries(response.headers)) {
        if (name !== 'content-length') ctx.set(name, value)
      }
      ctx.body = response.body
      return
    }
    ctx.respond = false
    const outcome = await upstream.stream(ctx.res, request, () => {
      metrics.observeUpstream(route, (performance.now() - sentAt) / 1000)
    })
    if (outcome !== 'complete')
      state.errorReason = outcome === 'client_gone' ? 'client.gone' : 'upstream.failed_mid_stream'
  }
}

/** A rewritten body has a new length (known for a Buffer, chunked for a stream) and maybe a new type. */
function replaceBodyHeaders(
  headers: string[],
  body: Buffer | NodeJS.ReadableStream,
  contentType?: string,
): void {
  for (let index = headers.length - 2; index >= 0; index -= 2) {
    const name = (headers[index] as string).toLowerCase()
    if (name === 'content-length' || (contentType !== undefined && name === 'content-type')) {
      headers.splice(index, 2)
    }
  }
  if (Buffer.isBuffer(body)) headers.push('content-length', String(body.length))
  if (contentType !== undefined) headers.push('content-type', contentType)
}
