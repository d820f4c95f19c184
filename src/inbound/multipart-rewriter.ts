import { randomBytes } from 'node:crypto'
import { PassThrough, Readable } from 'node:stream'
import { fieldTextBytes, formCharset, type FormCharset } from './form-charset.js'
import { FormEditChain, type FieldValue, type FormEdit } from './form-edits.js'
import {
  readParts,
  type MultipartInput,
  type ParsedForm,
  type PartHandler,
  type PartReader,
} from './multipart-parser.js'
import { outputContentType, partHeader } from './multipart-parts.js'

/** A multipart body to rewrite: a stream parsed as it passes, or a form already parsed whole. */
export type FormSource =
  | (MultipartInput & { readonly stream: Readable })
  | { readonly form: ParsedForm; readonly maxFieldBytes: number }

/** A rewritten body: its output, and the output's Content-Type (a boundary of our own). */
export interface StreamRewrite {
  readonly body: Readable
  readonly contentType: string
}

export type FormRewriter = (source: FormSource, edits: readonly FormEdit[]) => StreamRewrite

/**
 * Re-serializes a multipart body part by part with a new boundary, applying every edit of every
 * step in one pass. Files are piped through with backpressure, never held: the input is paused
 * while the output or the queue of parsed fields is full. Since the upstream parses only what we
 * wrote, it cannot read a part differently than we did. A failure (a part the parser refuses, a
 * screen that rejects, the client's stream ending early) fails the output before its end, with
 * the error the client should get.
 */
export const rewriteForm: FormRewriter = (source, edits) => {
  const boundary = `----portcullis${randomBytes(12).toString('hex')}`
  const original = 'stream' in source ? source.contentType : source.form.contentType
  const charset = formCharset(original)
  const out = new PassThrough()
  const room = source.maxFieldBytes
  let reader: PartReader | undefined
  let queue: Promise<void> = Promise.resolve()
  let backlog = 0
  let finished = false
  let failed = false

  const fail = (error: unknown): void => {
    if (failed || finished) return
    failed = true
    reader?.stop()
    out.destroy(error instanceof Error ? error : new Error(String(error)))
  }
  const enqueue = (task: () => Promise<void>): void => {
    queue = queue.then(() => (failed ? undefined : task())).catch(fail)
  }
  const write = async (chunk: Buffer): Promise<void> => {
    if (!out.write(chunk)) await drained(out)
  }
  const resume = (): void => {
    if (!failed && backlog <= room) reader?.resume()
  }
  /** `held`: the bytes a deferred value keeps in memory until it is settled. */
  const settle = (held: number, task: () => Promise<void>): void => {
    backlog += held
    enqueue(async () => {
      await task()
      backlog -= held
      resume()
    })
  }
  const chain = new FormEditChain(edits, {
    field(name, value, held) {
      settle(held, async () => {
        const resolved = typeof value === 'function' ? await value() : value
        const bytes = bytesOf(resolved, charset)
        await write(Buffer.concat([partHeader(boundary, { name }), bytes, CRLF]))
      })
    },
    file(head, content) {
      enqueue(async () => {
        await write(partHeader(boundary, head))
        for await (const chunk of content as AsyncIterable<Buffer>) await write(chunk)
        await write(CRLF)
      })
    },
    settle(value, held) {
      settle(held, async () => void (await value()))
    },
  })
  const handler: PartHandler = {
    field: (name, value) => chain.field(name, value),
    file: (head, content) => chain.file(head, content),
    end() {
      enqueue(async () => {
        await write(Buffer.from(`--${boundary}--\r\n`, 'latin1'))
        finished = true
        out.end()
      })
    },
    fail,
  }

  chain.start()
  out.on('close', () => fail(new Error('multipart output closed before its end')))
  if ('stream' in source) reader = readParts(source.stream, source, handler, () => backlog > room)
  else replay(source.form, handler)
  return { body: out, contentType: outputContentType(boundary, charset) }
}

function replay(form: ParsedForm, handler: PartHandler): void {
  for (const part of form.parts) {
    if ('value' in part) handler.field(part.name, part.value)
    else handler.file(part.head, Readable.from([part.data]))
  }
  handler.end()
}

/** A client's value goes as it came; a step's is encoded as the upstream reads it back. */
function bytesOf(value: FieldValue, charset: FormCharset): Buffer {
  return value.bytes ?? fieldTextBytes(value.text, charset)
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
