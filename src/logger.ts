import { pino, type DestinationStream, type Logger } from 'pino'
import { REDACTED, redactDeep, redactSecrets } from './redact.js'

export type { Logger }

export interface LoggerOptions {
  level: string
  /** Where lines go; stdout when absent. Tests pass a capturing stream. */
  destination?: DestinationStream
}

/**
 * Structured JSON logs. Credential-bearing fields are censored by path; every other string is
 * scanned for token-shaped values, so a token inside an error message is redacted too.
 */
export function createLogger(options: LoggerOptions): Logger {
  const destination = options.destination ?? bufferedStdout()
  return pino(
    {
      level: options.level,
      base: { service: 'portcullis' },
      timestamp: pino.stdTimeFunctions.isoTime,
      messageKey: 'msg',
      redact: {
        paths: [
          'headers.authorization',
          'headers.cookie',
          'headers["set-cookie"]',
          'headers["sec-websocket-protocol"]',
          'headers["x-api-key"]',
          '*.headers.authorization',
          '*.headers.cookie',
          'token',
          'password',
          'security_key',
        ],
        censor: REDACTED,
      },
      formatters: {
        log: (object) => redactDeep(object) as Record<string, unknown>,
      },
      hooks: {
        logMethod(args, method) {
          const redacted = args.map((arg) => (typeof arg === 'string' ? redactSecrets(arg) : arg))
          method.apply(this, redacted as Parameters<typeof method>)
        },
      },
    },
    destination,
  )
}

const FLUSH_INTERVAL_MS = 1_000
/**
 * The block standard output is written in (and the access log hands its lines over in): just
 * under the largest single write the destination is allowed, STDOUT_MAX_WRITE_BYTES.
 */
export const STDOUT_BLOCK_BYTES = 64_000
export const STDOUT_MAX_WRITE_BYTES = 64 * 1024

/** A destination that also takes whole lines already encoded (the access log's blocks). */
export interface BlockDestination {
  /** Bytes of whole UTF-8 lines, written in order with the string lines; kept, not copied. */
  writeBlock(block: Buffer): void
}

/**
 * Standard output written in blocks of about 64 KB instead of one write per line, flushed at least
 * every second so a quiet gateway's lines still appear; pino flushes what is left when the process
 * exits. Writes stay asynchronous (a stalled log reader never blocks requests), and each costs a
 * round trip through libuv's thread pool, paid per block: with 4 KiB blocks that round trip made
 * the access log 14 % of a proxied request's CPU, and 64 KB blocks cost about 0.9 µs a line less
 * than sonic-boom's default largest write, 16 KiB. A block holds whole lines.
 *
 * The stream holds bytes, not strings: the access log hands over its lines already encoded
 * (`writeBlock`), and the logger's own lines are encoded as they come. As strings, sonic-boom
 * measured the UTF-8 length of every hand-off and of its pending chunk, and the write encoded the
 * whole block again. One stream for both keeps their lines in order and whole: two writers on one
 * pipe could interleave writes longer than the pipe's atomic 4 KiB.
 */
function bufferedStdout(): DestinationStream & BlockDestination {
  const stream = pino.destination({
    dest: 1,
    sync: false,
    minLength: STDOUT_BLOCK_BYTES,
    maxWrite: STDOUT_MAX_WRITE_BYTES,
    contentMode: 'buffer',
  })
  setInterval(() => {
    try {
      stream.flush()
    } catch {
      // The stream was destroyed (standard output closed): there is nowhere left to write.
    }
  }, FLUSH_INTERVAL_MS).unref()
  // sonic-boom's types declare `write(string)` whatever its content mode; in buffer mode it takes
  // bytes and nothing else.
  return {
    write: (line: string) => stream.write(Buffer.from(line, 'utf8') as unknown as string),
    writeBlock: (block: Buffer) => void stream.write(block as unknown as string),
    flush: (callback?: (error?: Error) => void) => stream.flush(callback),
    flushSync: () => stream.flushSync(),
  } as DestinationStream & BlockDestination
}
