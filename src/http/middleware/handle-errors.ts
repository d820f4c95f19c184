import type { Next } from 'koa'
import type { Logger } from '../../logger.js'
import { errorBody, errorHeaders, toGatewayError } from '../../errors.js'
import { corsErrorHeaders } from '../cors.js'
import type { GatewayContext } from '../state.js'

/** The only place a thrown error becomes a response: `{"detail": …}`, CORS for allowed origins. */
export function handleErrors(deps: { logger: Logger; allowedOrigins: readonly string[] }) {
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
      ctx.respond = true
      ctx.status = error.status
      ctx.set(errorHeaders(error))
      const cors = corsErrorHeaders(ctx.get('origin') || undefined, deps.allowedOrigins)
      if (cors !== undefined) ctx.set(cors)
      ctx.body = errorBody(error)
      ctx.state.refusal = error
    }
  }
}
