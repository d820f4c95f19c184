import type { IncomingHttpHeaders } from 'node:http'
import type { InboundRequest } from '../../src/inbound/inbound-request.js'

/** A transport-free request as the inbound adapter would build it; headers follow `rawHeaders`. */
export function inboundRequest(overrides: Partial<InboundRequest> = {}): InboundRequest {
  const rawHeaders = overrides.rawHeaders ?? []
  const headers: IncomingHttpHeaders = {}
  for (let index = 0; index + 1 < rawHeaders.length; index += 2) {
    headers[(rawHeaders[index] ?? '').toLowerCase()] = rawHeaders[index + 1] ?? ''
  }
  const path = overrides.path ?? '/agents'
  return {
    method: 'GET',
    path,
    forwardPath: path,
    query: '',
    headers,
    rawHeaders,
    transport: 'http',
    peer: '127.0.0.1',
    peerTrusted: false,
    clientAddress: '127.0.0.1',
    requestId: 'test-request',
    ...overrides,
  }
}
