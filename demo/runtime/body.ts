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
  let parser: busboy.Busboy
  try {
    parser = busboy({ headers: req.headers, defParamCharset: 'utf8' })
  } catch {
    result.problem = 'malformed-form'
    return { write: () => true, finish: async () => {}, onDrain: () => {} }
  }
  if (mediaType(req) === 'multipart/form-data') result.files = files
  const done = new Promise<void>((resolve) => {
    parser.on('field', (name, value) => (form[name] ??= []).push(value))
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
