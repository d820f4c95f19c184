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
    options.destination,
  )
}
