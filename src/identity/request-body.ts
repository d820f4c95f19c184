import type { IncomingHttpHeaders } from 'node:http'
import type { Readable } from 'node:stream'
import { GatewayError } from '../errors.js'

/** How the upstream (FastAPI/Starlette) will read a request body. */
export type BodyKind = 'none' | 'json' | 'urlencoded' | 'multipart' | 'other'

// Python's str.strip() within latin1 (header values are latin1): more than JavaScript's trim().
const PYTHON_SPACE = new Set([
  0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x1c, 0x1d, 0x1e, 0x1f, 0x20, 0x85, 0xa0,
])

function pythonStrip(text: string): string {
  let start = 0
  let end = text.length
  while (start < end && PYTHON_SPACE.has(text.charCodeAt(start))) start++
  while (end > start && PYTHON_SPACE.has(text.charCodeAt(end - 1))) end--
  return text.slice(start, end)
}

export function hasBody(headers: IncomingHttpHeaders): boolean {
  const length = headers['content-length']
  return (
    (length !== undefined && Number(length) !== 0) || headers['transfer-encoding'] !== undefined
  )
}

/**
 * Classifies the body as liberally as the upstream parses it: FastAPI reads a body without a
 * Content-Type as JSON, and `application/*+json` as JSON; Starlette matches the form types
 * case-insensitively. Missing a body the upstream reads would leave it unpinned.
 */
export function bodyKind(headers: IncomingHttpHeaders): BodyKind {
  if (!hasBody(headers)) return 'none'
  const contentType = headers['content-type']
  if (contentType === undefined || contentType === '') return 'json'
  const semicolon = contentType.indexOf(';')
  const media = pythonStrip(
    semicolon === -1 ? contentType : contentType.slice(0, semicolon),
  ).toLowerCase()
  if (media === 'application/x-www-form-urlencoded') return 'urlencoded'
  if (media === 'multipart/form-data') return 'multipart'
  const slash = media.indexOf('/')
  if (slash === -1 || media.indexOf('/', slash + 1) !== -1) return 'other'
  const subtype = media.slice(slash + 1)
  return media.slice(0, slash) === 'application' &&
    (subtype === 'json' || subtype.endsWith('+json'))
    ? 'json'
    : 'other'
}

export function bodyTooLarge(): GatewayError {
  return new GatewayError('PAYLOAD_TOO_LARGE', 'Request body too large', {
    reason: 'identity.body_too_large',
  })
}

export function unreadableBody(cause: unknown): GatewayError {
  return new GatewayError('BAD_REQUEST', 'Request body could not be read', {
    reason: 'identity.body_unreadable',
    cause,
  })
}

/**
 * Reads a whole stream into memory, refusing (413) past `maxBytes` without reading further. The
 * stream is left paused, not destroyed, so that the 413 can still reach the client.
 */
export function readBounded(
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
