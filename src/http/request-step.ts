import type { GatewayContext } from './state.js'

/**
 * One step of the HTTP request path after the error handler: it goes on to the next step (`true`)
 * or has answered the request (`false`). A step that needs nothing asynchronous answers at once:
 * the path's steps run in one Koa middleware, so a request pays one layer of Koa's dispatch, not
 * one per step.
 */
export type RequestStep = (ctx: GatewayContext) => boolean | Promise<boolean>

/** Runs the steps in order until one answers; the Koa middleware of the request path. */
export function runSteps(steps: readonly RequestStep[]) {
  return async function requestStepsMiddleware(ctx: GatewayContext): Promise<void> {
    for (const step of steps) {
      const proceed = step(ctx)
      if (!(proceed === true || (proceed !== false && (await proceed)))) return
    }
  }
}
