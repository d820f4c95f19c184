import { randomBytes } from 'node:crypto'
import { PassThrough, type Readable } from 'node:stream'
import busboy, { type Busboy, type FieldInfo, type FileInfo } from 'busboy'
import { GatewayError } from '../errors.js'
import { findPin, observe, type FieldPin, type ObservedFields } from './field-pin.js'
import { bodyTooLarge, unreadableBody } from '../inbound/request-body.js'
import { encodePart, outputContentType, partHeader, type PartHead } from './multipart-parts.js'

/**
 * Text fields a caller decides on as they stream past: each value of a named field is written as
 * `screen` resolves it, and nothing after it is written before; a rejection fails the body, so
 * the upstream never receives a complete request.
 */
export interface FieldScreen {
  readonly names: ReadonlySet<string>
  screen(name: string, value: string): Promise<string>
}

export interface MultipartRewriteOptions {
  readonly pins: readonly FieldPin[]
  /** Field names whose client values are reported in `done`. */
  readonly observed: readonly string[]
  /** Largest text field accepted (413 beyond); files are not limited. */
  readonly maxFieldBytes: number
  readonly maxParts: number
  readonly screen?: FieldScreen
}

export interface MultipartRewrite {
  readonly body: Readable
  /** The output's Content-Type, with a boundary of our own. */
  readonly contentType: string
  /** The client's observed fields once the input is parsed; rejects as the body fails. */
  readonly done: Promise<ObservedFields>
}

export function invalidMultipart(cause?: unknown): GatewayError {
  return new GatewayError('BAD_REQUEST', 'Invalid multipart body', {
    reason: 'identity.multipart',
    cause,
  })
}

/**
 * Starlette's text for a part without `name` (reference: starlette/formparsers.py). busboy also
 * reads no name from the RFC 2231 form `name*=…`, which Python's parser would decode: such a part
 * cannot be re-serialized as the upstream would read it, so it is refused the same way.
 */
export const PART_NAME_REQUIRED = 'The Content-Disposition header field "name" must be provided.'

function unnamedPart(): GatewayError {
  return new GatewayError('BAD_REQUEST', PART_NAME_REQUIRED, { reason: 'identity.multipart_name' })
}

/**
 * Re-serializes a multipart body part by part with a new boundary, dropping every client part
 * named like a pinned field and writing ours. Files are piped through with backpressure, never
 * held: the input is paused while the output or the queue of parsed fields is full. Since the
 * upstream parses only what we wrote, it cannot read a part differently than we did.
 */
export function rewriteMultipart(
  input: Readable,
  contentType: string,
  options: MultipartRewriteOptions,
): MultipartRewrite {
  let parser: Busboy
  try {
    parser = busboy({
      headers: { 'content-type': contentType },
      // latin1 keeps a field's bytes recoverable when the part declares no charset.
      defCharset: 'latin1',
      preservePath: true,
      limits: { fieldSize: options.maxFieldBytes + 1, parts: options.maxParts + 1 },
    })
  } catch (error) {
    throw invalidMultipart(error)
  }
  const boundary = `----portcullis${randomBytes(12).toString('hex')}`
  const out = new PassThrough()
  const seen = new Map<string, unknown[]>()
  const emitted = new Set<string>()
  let queue: Promise<void> = Promise.resolve()
  let backlog = 0
  let finished = false
  let failed = false
  let settle: { resolve: (fields: ObservedFields) => void; reject: (error: unknown) => void }
  const done = new Promise<ObservedFields>((resolve, reject) => (settle = { resolve, reject }))
  done.catch(() => {})

  const fail = (error: unknown): void => {
    if (failed || finished) return
    failed = true
    input.off('data', onData)
    input.pause()
    parser.destroy()
    out.destroy(error instanceof Error ? error : new Error(String(error)))
    settle.reject(error)
  }
  const enqueue = (task: () => Promise<void>): void => {
    queue = queue.then(() => (failed ? undefined : task())).catch(fail)
  }
  const write = async (chunk: Buffer): Promise<void> => {
    if (!out.write(chunk)) await drained(out)
  }
  /** `held`: the bytes a deferred value keeps in memory until it is written. */
  const writePart = (
    head: PartHead,
    value: Buffer | (() => Promise<Buffer>),
    held = Buffer.isBuffer(value) ? value.length : 0,
  ): void => {
    backlog += held
    enqueue(async () => {
      const bytes = Buffer.isBuffer(value) ? value : await value()
      await write(Buffer.concat([partHeader(boundary, head), bytes, CRLF]))
      backlog -= held
      resumeInput()
    })
  }
  const emitPin = (pin: FieldPin): void => {
    emitted.add(pin.name)
    writePart({ name: pin.name }, Buffer.from(pin.value, 'utf8'))
  }
  const resumeInput = (): void => {
    if (!failed && !parser.writableNeedDrain && backlog <= options.maxFieldBytes) input.resume()
  }
  const onData = (chunk: Buffer): void => {
    if (!parser.write(chunk) || backlog > options.maxFieldBytes) input.pause()
  }
  /** A client part named like a pinned field: dropped; a replace-only pin takes its place. */
  const replaced = (name: string): boolean => {
    const pin = findPin(options.pins, name)
    if (pin === undefined) return false
    if (!emitted.has(name)) emitPin(pin)
    return true
  }

  for (const pin of options.pins) if (pin.always) emitPin(pin)
  // busboy's types say string; a part without a readable name gives undefined.
  parser.on('field', (name: string | undefined, value: string, info: FieldInfo) => {
    if (typeof name !== 'string') return fail(unnamedPart())
    if (info.valueTruncated) return fail(bodyTooLarge())
    if (options.observed.includes(name)) observe(seen, name, value)
    if (replaced(name)) return
    const screen = options.screen
    if (screen?.names.has(name) === true) {
      const screened = async () => encodePart(await screen.screen(name, value))
      writePart({ name }, screened, value.length)
    } else writePart({ name }, encodePart(value))
  })
  parser.on('file', (name: string | undefined, file: Readable, info: FileInfo) => {
    // A failure destroys the parser, which errors the part being read: never unhandled.
    file.on('error', () => {})
    if (typeof name !== 'string') {
      file.resume()
      return fail(unnamedPart())
    }
    if (replaced(name)) {
      file.resume()
      return
    }
    const head: PartHead = {
      name,
      filename: info.filename,
      type: info.mimeType,
      encoding: info.encoding,
    }
    enqueue(async () => {
      await write(partHeader(boundary, head))
      for await (const chunk of file as AsyncIterable<Buffer>) await write(chunk)
      await write(CRLF)
    })
  })
  parser.on('partsLimit', () => fail(bodyTooLarge()))
  parser.on('error', (error: unknown) => fail(invalidMultipart(error)))
  parser.on('drain', resumeInput)
  parser.on('finish', () => {
    enqueue(async () => {
      await write(Buffer.from(`--${boundary}--\r\n`, 'latin1'))
      finished = true
      out.end()
      settle.resolve(seen)
    })
  })
  out.on('close', () => fail(new Error('multipart output closed before its end')))
  input.on('data', onData)
  input.once('end', () => {
    if (!failed) parser.end()
  })
  // An earlier rewrite of the body fails with the client's answer (a 413, a refusal): kept as is.
  input.once('error', (error: unknown) =>
    fail(error instanceof GatewayError ? error : unreadableBody(error)),
  )
  input.once('close', () => {
    if (!input.readableEnded) fail(unreadableBody(new Error('request closed before its end')))
  })
  return { body: out, contentType: outputContentType(boundary, contentType), done }
}

const CRLF = Buffer.from('\r\n')

function drained(stream: PassThrough): Promise<void> {
  return new Promise((resolve, reject) => {
    const onDrain = (): void => {
      stream.off('close', onClose)
      resolve()
    }
    const onClose = (): void => {
      stream.off('drain', onDrain)
      reject(new Error('multipart output closed'))
    }
    stream.once('drain', onDrain)
    stream.once('close', onClose)
  })
}
