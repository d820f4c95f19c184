import type { Next } from 'koa'
import type { Logger } from '../../logger.js'
import { toGatewayError } from '../../errors.js'
import { setRequestId } from '../request-id.js'
import { answerRefusal, type RefusalSettings } from '../refusal-response.js'
import type { GatewayContext } from '../state.js'

/**
 * Where a thrown error becomes a response (answerRefusal); an unexpected one is logged first.
 * Every answer Koa writes leaves here with its X-Request-Id.
 */
export function handleErrors(deps: { logger: Logger; refusals: RefusalSettings }) {
  return async function handleErrorsMiddleware(ctx: GatewayContext, next: Next): Promise<void> {
    try {
      await next()
    } catch (thrown) {
      const error = toGatewayError(thrown)
      if (error.code === 'INTERNAL') {
        deps.logger.error(
          { err: error.cause, req_id: ctx.state.client?.requestId },
          'unexpected error',
        )
      }
      if (ctx.res.headersSent) {
        ctx.res.destroy()
        return
      }
      answerRefusal(ctx, error, deps.refusals)
    }
    if (ctx.respond !== false) setRequestId(ctx)
  }
}
