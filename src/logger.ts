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
 * Standard output written in blocks of at least 4 KiB instead of one write per line (an access
 * line per request made the write the costliest step of a request), flushed at least every second
 * so a quiet gateway's lines still appear; pino flushes what is left when the process exits.
 */
function bufferedStdout(): DestinationStream {
  const stream = pino.destination({ dest: 1, sync: false, minLength: 4_096 })
  setInterval(() => {
    try {
      stream.flush()
    } catch {
      // The stream was destroyed (standard output closed): there is nowhere left to write.
    }
  }, FLUSH_INTERVAL_MS).unref()
  return stream
}
