/**
 * Reads a request body completely while streaming it: bytes are counted and hashed, forms and
 * multipart parts go through busboy (file parts are counted, never kept), and only JSON is
 * buffered, up to a limit.
 */
import { createHash } from 'node:crypto'
import type { IncomingMessage } from 'node:http'
import busboy from 'busboy'
import type { ReceivedFile } from './types.js'

export type BodyProblem = 'invalid-json' | 'too-large' | 'malformed-form'

export interface ParsedBody {
  bytes: number
  sha256: string
  form?: Record<string, string[]>
  files?: ReceivedFile[]
  json?: unknown
  problem?: BodyProblem
}

export interface ReadBodyOptions {
  jsonLimitBytes: number
  /** count and hash JSON bodies without buffering them */
  streamJson: boolean
}

interface BodySink {
  write(chunk: Buffer): boolean
  /** resolves once the parser has consumed everything it was given */
  finish(): Promise<void>
  onDrain(listener: () => void): void
}

function mediaType(req: IncomingMessage): string {
  return (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? ''
}

export function isJsonMediaType(type: string): boolean {
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'))
}

function formSink(req: IncomingMessage, result: ParsedBody): BodySink {
  const form: Record<string, string[]> = {}
  const files: ReceivedFile[] = []
  result.form = form
  const multipart = mediaType(req) === 'multipart/form-data'
  let parser: busboy.Busboy
  try {
    // Multipart text is read as Starlette reads it (see starletteText): latin1 keeps the bytes.
    const defCharset = multipart ? 'latin1' : undefined
    parser = busboy({ headers: req.headers, defParamCharset: 'utf8', defCharset })
  } catch {
    result.problem = 'malformed-form'
    return { write: () => true, finish: async () => {}, onDrain: () => {} }
  }
  if (multipart) result.files = files
  const charset = requestCharset(req)
  const done = new Promise<void>((resolve) => {
    parser.on('field', (name, value) =>
      (form[name] ??= []).push(multipart ? starletteText(value, charset) : value),
    )
    parser.on('file', (field, stream, info) => {
      const hash = createHash('sha256')
      const file = { field, filename: info.filename ?? '', size: 0, contentType: info.mimeType }
      stream.on('data', (chunk: Buffer) => {
        file.size += chunk.length
        hash.update(chunk)
      })
      stream.on('end', () => files.push({ ...file, sha256: hash.digest('hex') }))
      // a malformed form destroys the part with an error; the parser reports it too
      stream.on('error', () => {})
    })
    parser.on('close', resolve)
    parser.on('error', () => {
      result.problem = 'malformed-form'
      resolve()
    })
  })
  return {
    write: (chunk) => (result.problem ? true : parser.write(chunk)),
    finish: async () => {
      if (!result.problem) parser.end()
      await done
    },
    onDrain: (listener) => parser.on('drain', listener),
  }
}

/** The request's `charset` parameter, which Starlette decodes every multipart text field with. */
function requestCharset(req: IncomingMessage): string {
  return /;\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(req.headers['content-type'] ?? '')?.[1] ?? 'utf-8'
}

/**
 * Starlette's `_user_safe_decode`: a field's bytes in the request's charset (a part's own is
 * ignored), or latin-1 when they do not decode or the charset is unknown. `latin1Text` is busboy's
 * latin1 reading of a part that declared no charset: its bytes, one per character.
 */
function starletteText(latin1Text: string, charset: string): string {
  // Python's latin-1; the WHATWG label `latin1` would mean windows-1252.
  if (/^(latin[-_]?1|iso[-_]?8859[-_]1|l1|(us[-_])?ascii)$/i.test(charset)) return latin1Text
  const bytes = Buffer.from(latin1Text, 'latin1')
  try {
    return new TextDecoder(charset, { fatal: true, ignoreBOM: true }).decode(bytes)
  } catch {
    return latin1Text
  }
}

function jsonSink(result: ParsedBody, limit: number): BodySink {
  const chunks: Buffer[] = []
  let size = 0
  return {
    write: (chunk) => {
      size += chunk.length
      if (size > limit) {
        result.problem = 'too-large'
        chunks.length = 0
      } else {
        chunks.push(chunk)
      }
      return true
    },
    finish: async () => {
      if (result.problem || size === 0) return
      try {
        result.json = JSON.parse(Buffer.concat(chunks).toString('utf8'))
      } catch {
        result.problem = 'invalid-json'
      }
    },
    onDrain: () => {},
  }
}

function sinkFor(req: IncomingMessage, result: ParsedBody, options: ReadBodyOptions): BodySink {
  const type = mediaType(req)
  if (type === 'multipart/form-data' || type === 'application/x-www-form-urlencoded') {
    return formSink(req, result)
  }
  if (isJsonMediaType(type) && !options.streamJson) return jsonSink(result, options.jsonLimitBytes)
  return { write: () => true, finish: async () => {}, onDrain: () => {} }
}

/** Resolves when the body has been fully read; rejects if the client goes away first. */
export function readBody(req: IncomingMessage, options: ReadBodyOptions): Promise<ParsedBody> {
  const result: ParsedBody = { bytes: 0, sha256: '' }
  const hash = createHash('sha256')
  const sink = sinkFor(req, result, options)
  sink.onDrain(() => req.resume())
  return new Promise((resolve, reject) => {
    req.on('data', (chunk: Buffer) => {
      result.bytes += chunk.length
      hash.update(chunk)
      if (!sink.write(chunk)) req.pause()
    })
    req.on('end', () => {
      result.sha256 = hash.digest('hex')
      sink.finish().then(() => resolve(result), reject)
    })
    req.on('error', reject)
    req.on('close', () => {
      if (!req.complete) reject(new Error('request body aborted'))
    })
  })
}
