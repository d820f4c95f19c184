import { pino, type DestinationStream } from 'pino'
import type { Logger } from './logger.js'
import { redactSecrets } from './redact.js'

/** One line per answered request. */
export interface AccessRecord {
  readonly req_id: string
  readonly method: string
  readonly path: string
  readonly status: number
  readonly duration_ms: number
  readonly client: string
  readonly route: string
  readonly reason: string | undefined
}

/**
 * The access log writes to the main logger's destination without its censoring by path and its
 * deep scan of every string: the busiest line in the process pays for neither. That is safe
 * because a record holds only values the gateway made or validated (method, status, route label,
 * client address) plus the two a client chooses, which are scanned here: the path and a request
 * id accepted from a trusted proxy.
 */
export class AccessLog {
  readonly #lines: Logger

  constructor(logger: Logger) {
    const destination = (logger as unknown as Record<symbol, DestinationStream | undefined>)[
      pino.symbols.streamSym
    ]
    this.#lines = pino(
      {
        level: logger.level,
        base: { service: 'portcullis' },
        timestamp: pino.stdTimeFunctions.isoTime,
        messageKey: 'msg',
      },
      destination ?? process.stdout,
    )
  }

  write(record: AccessRecord): void {
    this.#lines.info(
      { ...record, req_id: redactSecrets(record.req_id), path: redactSecrets(record.path) },
      'request',
    )
  }
}
