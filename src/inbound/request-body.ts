import type { IncomingHttpHeaders } from 'node:http'
import type { Readable } from 'node:stream'
import { GatewayError } from '../errors.js'

/**
 * Whether a request carries a body: a non-zero Content-Length (`0` and `00` alike are none, as
 * Node's parser reads them) or any Transfer-Encoding (Node refuses a request with both).
 */
export function hasBody(headers: IncomingHttpHeaders): boolean {
  const length = headers['content-length']
  return (
    (length !== undefined && Number(length) !== 0) || headers['transfer-encoding'] !== undefined
  )
}

export function bodyTooLarge(): GatewayError {
  return new GatewayError('PAYLOAD_TOO_LARGE', 'Request body too large', {
    reason: 'body.too_large',
  })
}

export function unreadableBody(cause: unknown): GatewayError {
  return new GatewayError('BAD_REQUEST', 'Request body could not be read', {
    reason: 'body.unreadable',
    cause,
  })
}

/**
 * Reads a body the gateway must parse itself into memory, refusing (413) past `maxBytes`: at once
 * when the declared length is larger, else as soon as the bytes read are. Past the bound nothing
 * more is read: the stream is left paused, not destroyed, so that the 413 still reaches the
 * client (and the connection is not reused; the server's request timeout ends a client that
 * keeps sending). A stream that fails is a 400.
 */
export function readBoundedBody(
  stream: Readable,
  maxBytes: number,
  declaredLength?: string,
): Promise<Buffer> {
  if (declaredLength !== undefined && Number(declaredLength) > maxBytes) {
    return Promise.reject(bodyTooLarge())
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    const stop = (): void => {
      stream.off('data', onData)
      stream.off('end', onEnd)
      stream.off('error', onError)
    }
    const onData = (chunk: Buffer | string): void => {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk
      size += bytes.length
      if (size > maxBytes) {
        stop()
        stream.pause()
        reject(bodyTooLarge())
        return
      }
      chunks.push(bytes)
    }
    const onEnd = (): void => {
      stop()
      resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size))
    }
    const onError = (error: Error): void => {
      stop()
      reject(unreadableBody(error))
    }
    stream.on('data', onData)
    stream.once('end', onEnd)
    stream.once('error', onError)
  })
}
