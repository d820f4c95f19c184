import { Readable } from 'node:stream'
import busboy, { type Busboy, type FieldInfo, type FileInfo } from 'busboy'
import { GatewayError } from '../errors.js'
import { formCharset, readFieldText, type FormCharset } from './form-charset.js'
import type { FieldValue } from './form-edits.js'
import { encodePart, type PartHead } from './multipart-parts.js'
import { bodyTooLarge, unreadableBody } from './request-body.js'

/** Starlette's defaults allow 1000 fields and 1000 files. */
export const MAX_MULTIPART_PARTS = 2_000

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

/** What a multipart body is read with: its Content-Type and the largest text field (413 beyond). */
export interface MultipartInput {
  readonly contentType: string
  readonly maxFieldBytes: number
}

/** The parts of a multipart body, in order, as they are parsed. */
export interface PartHandler {
  /** A text field: its bytes, and their text as the upstream reads them. */
  field(name: string, value: Required<FieldValue>): void
  /** A file's bytes, streamed: the reader is paused while its consumer does not read them. */
  file(head: PartHead, content: Readable): void
  end(): void
  fail(error: unknown): void
}

/** The reading of one body: resumed by its consumer when it has room again, stopped on failure. */
export interface PartReader {
  resume(): void
  stop(): void
}

function parserFor({ contentType, maxFieldBytes }: MultipartInput): {
  readonly parser: Busboy
  readonly charset: FormCharset
} {
  const charset = formCharset(contentType)
  try {
    const parser = busboy({
      headers: { 'content-type': contentType },
      // latin1 keeps a field's bytes recoverable when the part declares no charset.
      defCharset: 'latin1',
      preservePath: true,
      limits: { fieldSize: maxFieldBytes + 1, parts: MAX_MULTIPART_PARTS + 1 },
    })
    return { parser, charset }
  } catch (error) {
    throw invalidMultipart(error)
  }
}

/** 400 unless `contentType` is a multipart type that names a boundary, in a charset read as Python does. */
export function checkMultipartType(contentType: string): void {
  // Built and dropped unwritten: destroying it would report an unfinished form.
  parserFor({ contentType, maxFieldBytes: 0 })
}

/**
 * Parses `input` part by part, bounded: a text field beyond `maxFieldBytes` or more than
 * `MAX_MULTIPART_PARTS` parts is a 413, a part without a name or a body that does not parse a
 * 400. The input is paused while the parser is full or `busy()` says the consumer is.
 */
export function readParts(
  input: Readable,
  spec: MultipartInput,
  handler: PartHandler,
  busy: () => boolean,
): PartReader {
  const { parser, charset } = parserFor(spec)
  let failed = false
  const fail = (error: unknown): void => {
    if (failed) return
    failed = true
    stop()
    handler.fail(error)
  }
  const resume = (): void => {
    if (!failed && !parser.writableNeedDrain && !busy()) input.resume()
  }
  const onData = (chunk: Buffer): void => {
    if (!parser.write(chunk) || busy()) input.pause()
  }
  const stop = (): void => {
    input.off('data', onData)
    input.pause()
    parser.destroy()
  }

  // busboy's types say string; a part without a readable name gives undefined, and so does a
  // value in a charset of its own that busboy cannot decode (its bytes are lost).
  parser.on('field', (name: string | undefined, value: string | undefined, info: FieldInfo) => {
    if (typeof name !== 'string') return fail(unnamedPart())
    if (info.valueTruncated) return fail(bodyTooLarge())
    if (typeof value !== 'string') return fail(invalidMultipart())
    // Starlette ignores a part's own charset: the bytes are read with the request's. A part that
    // declared one busboy decodes is written back as the text it read (readable the same way).
    const bytes = encodePart(value)
    handler.field(name, { bytes, text: readFieldText(bytes, charset) })
  })
  parser.on('file', (name: string | undefined, file: Readable, info: FileInfo) => {
    // A failure destroys the parser, which errors the part being read: never unhandled.
    file.on('error', () => {})
    if (typeof name !== 'string') {
      file.resume()
      return fail(unnamedPart())
    }
    const head = { name, filename: info.filename, type: info.mimeType, encoding: info.encoding }
    handler.file(head, file)
  })
  parser.on('partsLimit', () => fail(bodyTooLarge()))
  parser.on('error', (error: unknown) => fail(invalidMultipart(error)))
  parser.on('drain', resume)
  parser.on('finish', () => {
    if (!failed) handler.end()
  })
  input.on('data', onData)
  input.once('end', () => {
    if (!failed) parser.end()
  })
  // A body an earlier step refused fails with the client's answer (a 413, a refusal): kept as is.
  input.once('error', (error: unknown) =>
    fail(error instanceof GatewayError ? error : unreadableBody(error)),
  )
  input.once('close', () => {
    if (!input.readableEnded) fail(unreadableBody(new Error('request closed before its end')))
  })
  return {
    resume,
    stop: () => {
      failed = true
      stop()
    },
  }
}

/** One part of a form read whole: a text field, or a file with its bytes. */
export type FormPart =
  | { readonly name: string; readonly value: Required<FieldValue> }
  | { readonly head: PartHead; readonly data: Buffer }

/** A multipart form parsed once, whole, from bytes already read (and bounded) by the caller. */
export interface ParsedForm {
  readonly contentType: string
  readonly parts: readonly FormPart[]
}

export function parseForm(bytes: Buffer, spec: MultipartInput): Promise<ParsedForm> {
  return new Promise((resolve, reject) => {
    const parts: FormPart[] = []
    const files: Promise<void>[] = []
    readParts(
      Readable.from([bytes]),
      spec,
      {
        field: (name, value) => parts.push({ name, value }),
        file(head, content) {
          const index = parts.push({ head, data: Buffer.alloc(0) }) - 1
          const read = collect(content).then((data) => void (parts[index] = { head, data }))
          // A failure of the body is reported once, through `fail`.
          read.catch(() => {})
          files.push(read)
        },
        end: () =>
          void Promise.all(files).then(
            () => resolve({ contentType: spec.contentType, parts }),
            reject,
          ),
        fail: reject,
      },
      () => false,
    )
  })
}

async function collect(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const chunk of stream as AsyncIterable<Buffer>) chunks.push(chunk)
  return Buffer.concat(chunks)
}
