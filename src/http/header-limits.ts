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
