import { pino, type DestinationStream } from 'pino'
import { STDOUT_BLOCK_BYTES, type BlockDestination, type Logger } from './logger.js'
import type { LoggedReason } from './reasons.js'
import { holdsSecret, redactSecrets } from './redact.js'
import { systemTimers, type Timers } from './timers.js'

/**
 * One line per answered request. `req_id`, `method` and `client` are written as they are: their
 * sources make only JSON-safe text (printable ASCII without `"` or `\\`), so the line neither
 * scans nor escapes them.
 */
export interface AccessRecord {
  /**
   * An id `chooseRequestId` or `newRequestId` chose: letters, digits and `._:-`, never
   * token-shaped, so never scanned here.
   */
  readonly req_id: string
  /** As Node's parser read it (a method of its table), or `UNKNOWN`. */
  readonly method: string
  readonly path: string
  readonly status: number
  readonly duration_ms: number
  /** An IP address (`normalizeAddress`, `resolveClientAddress`), or `unknown`. */
  readonly client: string
  /** A route label: a catalogue template or family, or one of the gateway's own. */
  readonly route: string
  readonly reason: LoggedReason | undefined
  /** A WebSocket upgrade: its line is written when the connection closes. */
  readonly upgrade?: 'websocket'
  /** The connection's bytes from and to the client (upgrades). */
  readonly bytes_in?: number
  readonly bytes_out?: number
}

const INFO = pino.levels.values.info as number
const WARN = pino.levels.values.warn as number
/** The start of a line up to its time, at each level it is written at. */
const INFO_START = `{"level":${INFO},"time":"`
const WARN_START = `{"level":${WARN},"time":"`

/**
 * A 5xx the gateway answered itself (it gave a reason: the upstream failed or timed out, the
 * store or the key set is unavailable, shutdown cut the request) is a warning; everything else,
 * the upstream's own 5xx included, is information.
 */
export function accessLevel(status: number, reason: LoggedReason | undefined): 'info' | 'warn' {
  return status >= 500 && reason !== undefined ? 'warn' : 'info'
}

/**
 * The access log writes to the main logger's destination, at the main logger's level (followed as
 * it changes: a reload may change it), in the main logger's line format
 * (`level`, `time`, `service`, the record, `msg`), but builds the line itself: it is the busiest
 * line in the process, and pino's generic path (serializers, a fresh timestamp string, a child
 * object per call) cost more than the rest of the line. That is safe without the main logger's
 * censoring by path and its deep scan because a record holds only values the gateway made or
 * validated (method, status, route label, client address, request id: one relayed by a trusted
 * proxy is kept only when it is not token-shaped) plus the path, which a client chooses and is
 * scanned here.
 */
export class AccessLog {
  readonly #destination: DestinationStream & Partial<BlockDestination>
  /**
   * The main logger's level, kept as it changes (a reload sets it): read on the logger on every
   * line (pino's getter, then a symbol-keyed load) it cost about 300 instructions a line.
   */
  #levelVal: number
  readonly #clock = new IsoClock()
  readonly #reasonFields = new Map<string, string>()
  readonly #timers: Timers
  /** Lines not yet handed to the destination. */
  #pending = ''
  /** Whether every pending line is known to be ASCII: encoded as Latin-1 then (the same bytes). */
  #pendingAscii = true
  #handoff: { cancel(): void } | undefined
  readonly #handOffLater = (): void => {
    this.#handoff = undefined
    this.flush()
  }

  constructor(logger: Logger, timers: Timers = systemTimers) {
    const destination = (logger as unknown as Record<symbol, DestinationStream | undefined>)[
      pino.symbols.streamSym
    ]
    this.#destination = destination ?? process.stdout
    this.#levelVal = logger.levelVal
    logger.on('level-change', (_label, levelVal) => {
      this.#levelVal = levelVal
    })
    this.#timers = timers
  }

  /**
   * Writes the line at its level (accessLevel); `infoLines: false` (`logging.access_log` off)
   * keeps only the warnings.
   */
  write(record: AccessRecord, infoLines = true): void {
    const level = accessLevel(record.status, record.reason) === 'warn' ? WARN : INFO
    if ((level === INFO && !infoLines) || this.#levelVal > level) return
    const reason = record.reason === undefined ? '' : this.#reasonField(record.reason)
    const upgrade =
      record.upgrade === undefined
        ? ''
        : `,"upgrade":"${record.upgrade}","bytes_in":${record.bytes_in ?? 0},"bytes_out":${record.bytes_out ?? 0}`
    // A path holds a token rarely: testing for one costs less than a replacement that finds none.
    const rawPath = holdsSecret(record.path) ? redactSecrets(record.path) : record.path
    const path = this.#jsonChars(rawPath)
    const route = this.#jsonChars(record.route)
    this.#pending += `${level === INFO ? INFO_START : WARN_START}${this.#clock.now()}","service":"portcullis","req_id":"${record.req_id}","method":"${record.method}","path":"${path}","status":${record.status},"duration_ms":${hundredths(record.duration_ms)},"client":"${record.client}","route":"${route}"${reason}${upgrade},"msg":"request"}\n`
    if (this.#pending.length >= STDOUT_BLOCK_BYTES) this.flush()
    else this.#handoff ??= this.#timers.set(this.#handOffLater, HANDOFF_DELAY_MS)
  }

  /**
   * `,"reason":"…"`, made once per reason: every refusal's line has one (a flood's too), and
   * `JSON.stringify` of the reason cost about 1,300 instructions a line. Reasons are a closed set
   * (the reasons table, llhttp's error names); the bound only keeps that true.
   */
  #reasonField(reason: LoggedReason): string {
    let field = this.#reasonFields.get(reason)
    if (field === undefined) {
      field = `,"reason":${JSON.stringify(reason)}`
      if (this.#reasonFields.size < MAX_REASON_FIELDS) this.#reasonFields.set(reason, field)
    }
    return field
  }

  /**
   * A string's characters as they stand between a JSON string's quotes: one made only of printable
   * ASCII but `"` and `\\` is its own text, found by a loop (a regular expression's call cost
   * several times more on these short values); anything else takes JSON.stringify's general path
   * and may leave ASCII, so the pending lines are then encoded as UTF-8 (every other field of a
   * line is ASCII). The quotes are in the line's template, so the common case adds no pieces to
   * the line.
   */
  #jsonChars(text: string): string {
    for (let index = 0; index < text.length; index++) {
      const code = text.charCodeAt(index)
      if (code < 0x20 || code > 0x7e || code === 0x22 || code === 0x5c) {
        this.#pendingAscii = false
        return JSON.stringify(text).slice(1, -1)
      }
    }
    return text
  }

  /**
   * Hands the pending lines to the destination in one write: when they fill a block, at the
   * latest HANDOFF_DELAY_MS after the first of them, and on shutdown. Standard output takes them
   * encoded (`writeBlock`): the block is flattened and encoded once (as Latin-1 when it is all
   * ASCII: the same bytes, without a pass that measures its UTF-8), where a string was measured by
   * the destination on every hand-off and encoded again by its write. Another destination (a
   * test's) takes the string.
   */
  flush(): void {
    this.#handoff?.cancel()
    this.#handoff = undefined
    if (this.#pending === '') return
    const lines = this.#pending
    const encoding = this.#pendingAscii ? 'latin1' : 'utf8'
    this.#pending = ''
    this.#pendingAscii = true
    const destination = this.#destination
    try {
      if (destination.writeBlock === undefined) destination.write(lines)
      else destination.writeBlock(Buffer.from(lines, encoding))
    } catch {
      // The destination was destroyed (standard output closed): there is nowhere left to write,
      // and a hand-off must not take the gateway down with it.
    }
  }

  /**
   * For the process's exit: hands over the pending lines and writes what the destination holds
   * synchronously (an asynchronous write would never finish). After an uncaught error, too.
   */
  flushSync(): void {
    this.flush()
    try {
      ;(this.#destination as { flushSync?: () => void }).flushSync?.()
    } catch {
      // Standard output is closed or not open yet: nothing can be written any more.
    }
  }
}

/** Far more than there are reasons: the access log's own reason fields stay a small table. */
const MAX_REASON_FIELDS = 1_024

/** How long a line may wait for its block: a quiet gateway's lines still appear promptly. */
const HANDOFF_DELAY_MS = 50

/**
 * A duration in milliseconds to 0.01 (as the observer rounds it), written as JavaScript writes the
 * number (`1.5`, `0.07`, `12`) from two integers: a double's shortest digits were searched for on
 * every line (about 450 instructions of V8's FastDtoa), where small integers come from V8's cache.
 */
export function hundredths(ms: number): string {
  const total = Math.round(ms * 100)
  if (!Number.isSafeInteger(total) || total < 0) return String(ms)
  const whole = Math.floor(total / 100)
  const part = total % 100
  if (part === 0) return `${whole}`
  if (part % 10 === 0) return `${whole}.${part / 10}`
  return `${whole}.${part < 10 ? '0' : ''}${part}`
}

/**
 * The ISO time of the current millisecond: the date, hour and minute formatted once a minute, the
 * seconds and milliseconds appended (a `toISOString` per millisecond was the line's largest cost).
 */
export class IsoClock {
  readonly #read: () => number
  #minuteStart = -1
  #prefix = ''
  #ms = -1
  #iso = ''

  constructor(read: () => number = Date.now) {
    this.#read = read
  }

  now(): string {
    const ms = this.#read()
    if (ms === this.#ms) return this.#iso
    this.#ms = ms
    let within = ms - this.#minuteStart
    if (within < 0 || within >= MINUTE_MS) {
      this.#minuteStart = ms - (ms % MINUTE_MS)
      // `2026-11-27T19:31:` of `2026-11-27T19:31:00.000Z`.
      this.#prefix = new Date(this.#minuteStart).toISOString().slice(0, 17)
      within = ms - this.#minuteStart
    }
    const seconds = Math.floor(within / 1000)
    const millis = within % 1000
    this.#iso = `${this.#prefix}${seconds < 10 ? '0' : ''}${seconds}.${millis < 10 ? '00' : millis < 100 ? '0' : ''}${millis}Z`
    return this.#iso
  }
}

const MINUTE_MS = 60_000
