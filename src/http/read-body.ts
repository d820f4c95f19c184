import type { Readable } from 'node:stream'
import { GatewayError } from '../errors.js'

/** Reads a request body the gateway must parse itself, refusing (413) past `maxBytes`. */
export async function readBoundedBody(stream: Readable, maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    size += chunk.length
    if (size > maxBytes) {
      stream.resume()
      throw new GatewayError('PAYLOAD_TOO_LARGE', 'Request body too large', {
        reason: 'body.too_large',
      })
    }
    chunks.push(chunk)
  }
  return Buffer.concat(chunks)
}
