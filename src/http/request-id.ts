import type { GatewayContext } from './state.js'

export const REQUEST_ID = 'x-request-id'

/**
 * Answers the request's id as X-Request-Id, unless the answer already carries one (an upstream
 * answer relayed whole keeps the upstream's, as a streamed one does). Set when the answer is
 * made, not when the request is read: a streamed response writes it with the upstream's fields
 * in one `writeHead`, and any field set on the response before that makes Node merge every
 * upstream field in one by one.
 */
export function setRequestId(ctx: GatewayContext): void {
  const id = ctx.state.client?.requestId
  const res = ctx.res
  if (id !== undefined && !res.headersSent && !res.hasHeader(REQUEST_ID)) {
    res.setHeader(REQUEST_ID, id)
  }
}
