import { GatewayError } from '../errors.js'

/**
 * Node's parser stops collecting fields past `maxHeadersCount` without failing the request; the
 * server is set one above the limit so that a request over it is detected here and refused.
 */
export function assertHeaderCount(rawHeaders: readonly string[], max: number): void {
  if (rawHeaders.length / 2 > max) {
    throw new GatewayError('HEADERS_TOO_LARGE', 'Request header fields too large', {
      reason: 'headers.count',
    })
  }
}

/** Two Host fields make the target ambiguous; RFC 9112 §3.2 requires a 400. */
export function assertSingleHost(rawHeaders: readonly string[]): void {
  let seen = false
  for (let index = 0; index < rawHeaders.length; index += 2) {
    if ((rawHeaders[index] as string).toLowerCase() !== 'host') continue
    if (seen)
      throw new GatewayError('BAD_REQUEST', 'Bad Request', { reason: 'headers.duplicate_host' })
    seen = true
  }
}
