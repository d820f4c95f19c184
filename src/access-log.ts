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

const INFO = pino.levels.values.info as number

/**
 * The access log writes to the main logger's destination, in the main logger's line format
 * (`level`, `time`, `service`, the record, `msg`), but builds the line itself: it is the busiest
 * line in the process, and pino's generic path (serializers, a fresh timestamp string, a child
 * object per call) cost more than the rest of the line. That is safe without the main logger's
 * censoring by path and its deep scan because a record holds only values the gateway made or
 * validated (method, status, route label, client address) plus the two a client chooses, which
 * are scanned here: the path and a request id accepted from a trusted proxy.
 */
export class AccessLog {
  readonly #destination: DestinationStream
  readonly #enabled: boolean
  readonly #clock = new IsoClock()

  constructor(logger: Logger) {
    const destination = (logger as unknown as Record<symbol, DestinationStream | undefined>)[
      pino.symbols.streamSym
    ]
    this.#destination = destination ?? process.stdout
    this.#enabled = logger.levelVal <= INFO
  }

  write(record: AccessRecord): void {
    if (!this.#enabled) return
    const reason = record.reason === undefined ? '' : `,"reason":${JSON.stringify(record.reason)}`
    this.#destination.write(
      `{"level":${INFO},"time":"${this.#clock.now()}","service":"portcullis","req_id":${JSON.stringify(redactSecrets(record.req_id))},"method":${JSON.stringify(record.method)},"path":${JSON.stringify(redactSecrets(record.path))},"status":${record.status},"duration_ms":${record.duration_ms},"client":${JSON.stringify(record.client)},"route":${JSON.stringify(record.route)}${reason},"msg":"request"}\n`,
    )
  }
}

/** The ISO time of the current millisecond, formatted once per millisecond, not once per line. */
class IsoClock {
  #ms = -1
  #iso = ''

  now(): string {
    const ms = Date.now()
    if (ms !== this.#ms) {
      this.#ms = ms
      this.#iso = new Date(ms).toISOString()
    }
    return this.#iso
  }
}
