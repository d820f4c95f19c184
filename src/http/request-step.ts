import type { ThrownAnswer } from './middleware/handle-errors.js'
import type { RequestObserver } from './middleware/observe.js'
import { setRequestId } from './request-id.js'
import type { GatewayContext } from './state.js'

/**
 * One step of the HTTP request path: it goes on to the next step (`true`) or has answered the
 * request (`false`). A step that needs nothing asynchronous answers at once.
 */
export type RequestStep = (ctx: GatewayContext) => boolean | Promise<boolean>

/**
 * The Koa middleware of the request path, the app's only one: observed from start to end, the
 * steps in order until one answers, a thrown error answered, every answer Koa writes with its
 * X-Request-Id. One layer of Koa's dispatch and one promise a request, not one per concern: each
 * further async layer allocated its own promise and Koa's `next` on every request.
 */
export function requestPath(deps: {
  readonly observer: RequestObserver
  readonly answerThrown: ThrownAnswer
  readonly steps: readonly RequestStep[]
}) {
  const { observer, answerThrown, steps } = deps
  return async function requestPathMiddleware(ctx: GatewayContext): Promise<void> {
    const startedAt = observer.enter()
    try {
      try {
        for (const step of steps) {
          const proceed = step(ctx)
          if (!(proceed === true || (proceed !== false && (await proceed)))) break
        }
      } catch (thrown) {
        answerThrown(ctx, thrown)
      }
      if (ctx.respond !== false) setRequestId(ctx)
    } finally {
      observer.leave(ctx, startedAt)
    }
  }
}
