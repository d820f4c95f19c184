import { performance } from 'node:perf_hooks'
import type { Metrics } from '../../metrics.js'
import type { UpstreamClient, UpstreamRequest } from '../../upstream/upstream-client.js'
import type { ResponseRewrite } from '../../upstream/forward-plan.js'
import type { UpstreamHeaderOptions } from '../../upstream/upstream-headers.js'
import { upstreamRequest } from '../../upstream/upstream-request.js'
import type { RequestStep } from '../request-step.js'
import { planOf, requestOf, routeLabel, type GatewayContext } from '../state.js'

const BUFFERED_RESPONSE_LIMIT = 16 * 1024 * 1024

/**
 * The end of the chain: carries out the request's forward plan and streams the answer back. Not
 * an async function: the streamed case, nearly every request, waits on the stream's own promise
 * alone.
 */
export function forward(deps: {
  upstream: UpstreamClient
  headerOptions: UpstreamHeaderOptions
  metrics: Metrics
}): RequestStep {
  const { upstream, headerOptions, metrics } = deps
  return function forwardStep(ctx: GatewayContext): Promise<boolean> {
    const state = ctx.state
    const plan = planOf(ctx)
    const { inbound, body } = requestOf(ctx)
    const request = upstreamRequest(inbound, plan, body, headerOptions)
    const sentAt = performance.now()
    const route = routeLabel(state)
    const answered = (): void => {
      metrics.observeUpstream(route, (performance.now() - sentAt) / 1000)
    }
    if (plan.rewriteResponse !== undefined) {
      return forwardRewritten(ctx, upstream, request, plan.rewriteResponse, answered)
    }
    ctx.respond = false
    return upstream.stream(ctx.res, request, inbound.requestId, answered).then((outcome) => {
      state.streamed = outcome
      return false
    })
  }
}

/** A response the plan rewrites: read whole (bounded), rewritten, answered by Koa. */
async function forwardRewritten(
  ctx: GatewayContext,
  upstream: UpstreamClient,
  request: UpstreamRequest,
  rewrite: ResponseRewrite,
  /** The upstream's answer is in (for the upstream latency metric). */
  answered: () => void,
): Promise<boolean> {
  const response = await rewrite(await upstream.fetch(request, BUFFERED_RESPONSE_LIMIT))
  answered()
  ctx.status = response.status
  for (const [name, value] of Object.entries(response.headers)) {
    if (name !== 'content-length') ctx.set(name, value)
  }
  ctx.body = response.body
  return false
}
