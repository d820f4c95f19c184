import { performance } from 'node:perf_hooks'
import type { Metrics } from '../../metrics.js'
import type { UpstreamClient } from '../../upstream/upstream-client.js'
import type { UpstreamHeaderOptions } from '../../upstream/upstream-headers.js'
import { upstreamRequest } from '../../upstream/upstream-request.js'
import type { RequestStep } from '../request-step.js'
import { planOf, requestOf, routeLabel, type GatewayContext } from '../state.js'

const BUFFERED_RESPONSE_LIMIT = 16 * 1024 * 1024

/** The end of the chain: carries out the request's forward plan and streams the answer back. */
export function forward(deps: {
  upstream: UpstreamClient
  headerOptions: UpstreamHeaderOptions
  metrics: Metrics
}): RequestStep {
  const { upstream, headerOptions, metrics } = deps
  return async function forwardStep(ctx: GatewayContext): Promise<boolean> {
    const state = ctx.state
    const plan = planOf(ctx)
    const { inbound, body } = requestOf(ctx)
    const request = upstreamRequest(inbound, plan, body, headerOptions)
    const sentAt = performance.now()
    const route = routeLabel(state)
    if (plan.rewriteResponse !== undefined) {
      const response = await plan.rewriteResponse(
        await upstream.fetch(request, BUFFERED_RESPONSE_LIMIT),
      )
      metrics.observeUpstream(route, (performance.now() - sentAt) / 1000)
      ctx.status = response.status
      for (const [name, value] of Object.entries(response.headers)) {
        if (name !== 'content-length') ctx.set(name, value)
      }
      ctx.body = response.body
      return false
    }
    ctx.respond = false
    const outcome = await upstream.stream(ctx.res, request, inbound.requestId, () => {
      metrics.observeUpstream(route, (performance.now() - sentAt) / 1000)
    })
    state.streamed = outcome
    return false
  }
}
