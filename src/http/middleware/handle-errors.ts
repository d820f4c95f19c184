import type { Logger } from '../../logger.js'
import { toGatewayError } from '../../errors.js'
import { answerRefusal, type RefusalSettings } from '../refusal-response.js'
import type { GatewayContext } from '../state.js'

/** Makes the response of an error a step threw. */
export type ThrownAnswer = (ctx: GatewayContext, thrown: unknown) => void

/**
 * Where a thrown error becomes a response (answerRefusal); an unexpected one is logged first. A
 * response already under way cannot take another: its connection is cut instead.
 */
export function answerThrown(deps: { logger: Logger; refusals: RefusalSettings }): ThrownAnswer {
  return (ctx, thrown) => {
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
}
