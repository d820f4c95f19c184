import type { Logger } from '../logger.js'
import type { AgentOsLine } from '../policy/catalogue/agentos-line.js'
import { StartupError } from '../startup-error.js'
import type { Detection } from './agentos-detection.js'
import type { ProbeOutcome } from './agentos-probe.js'
import { describeReport, pinMismatch, refusalAtStart } from './agentos-reports.js'

/** `upstream.agentos_version`. */
export type AgentOsSetting = 'auto' | AgentOsLine

/** The line requests are decided with, and how it was chosen. */
export interface LineInForce {
  readonly line: AgentOsLine
  readonly source: 'detected' | 'pinned'
  /** The upstream's last answer; for a pinned line, undefined until it has answered. */
  readonly upstream: Detection | undefined
}

/** A pinned line the upstream contradicts: another line, an unsupported version, or an unreadable answer. */
export function pinContradicted(inForce: LineInForce): boolean {
  const upstream = inForce.upstream
  if (inForce.source !== 'pinned' || upstream === undefined) return false
  return upstream.kind !== 'line' || upstream.line !== inForce.line
}

/**
 * A line in force, in words: `3.0 (detected: agno 3.0.0a3)`, `3.0 (pinned; upstream reports agno
 * 2.9.0: a mismatch)`, `3.0 (pinned; upstream not read yet)`.
 */
export function describeInForce(inForce: LineInForce): string {
  const upstream = inForce.upstream
  if (inForce.source === 'detected')
    return `${inForce.line} (detected: ${upstream === undefined ? 'no answer' : describeReport(upstream)})`
  if (upstream === undefined) return `${inForce.line} (pinned; upstream not read yet)`
  const mismatch = pinContradicted(inForce) ? ': a mismatch' : ''
  return `${inForce.line} (pinned; upstream reports ${describeReport(upstream)}${mismatch})`
}

export interface LineWatchOptions {
  readonly setting: AgentOsSetting
  readonly upstreamUrl: string
  /** One read of the upstream's version (never rejects). */
  readonly probe: () => Promise<ProbeOutcome>
  /** Puts a line to work (builds what decides requests with it); held requests wait for it. */
  readonly apply: (inForce: LineInForce) => Promise<void>
  readonly logger: Logger
  /** Longest a request waits for a re-read before it is refused. */
  readonly holdLimitMs?: number
  /** Retries after an upstream that did not answer, or (auto) answered with no usable line. */
  readonly retry?: { readonly firstMs: number; readonly maxMs: number }
}

export interface LineReadiness {
  readonly ready: boolean
  readonly detail: string
}

/** The labels of `portcullis_agentos_info`. */
export interface LineLabels {
  readonly line: AgentOsLine
  readonly version: string
  readonly source: 'detected' | 'pinned'
}

const HOLD_LIMIT_MS = 10_000
const RETRY = { firstMs: 250, maxMs: 10_000 }

/**
 * Which AgentOS line is in force, kept true to the upstream for as long as the gateway runs.
 *
 * `auto`: read at start; a start that finds an unsupported version or an unreadable answer is
 * refused, one that finds no upstream goes on without a line (requests are refused until one is
 * read). Whenever the upstream may have restarted (`suspect`: a connection-level failure, the
 * readiness probe reaching it again; `connectionsClosed`: no connection is left, so the next one
 * may reach another process) the version is read again before the next request is decided:
 * requests wait for that read, bounded, and are refused when it does not settle a line. A
 * different line is applied before any request is decided with it.
 *
 * A pinned line is in force from the start and never waits: the upstream is read in the
 * background on the same occasions, and a contradiction is logged and applied (it makes
 * `auth.deny_unmapped_routes` default to true).
 */
export class AgentOsLineWatch {
  readonly #options: LineWatchOptions
  readonly #pinned: AgentOsLine | undefined
  readonly #holdLimitMs: number
  readonly #retry: { readonly firstMs: number; readonly maxMs: number }
  #inForce: LineInForce | undefined
  /** auto: the upstream's last answer named no line Portcullis can decide for. */
  #refusal: Exclude<Detection, { kind: 'line' }> | undefined
  /** The last read got no answer: why. */
  #unreachable: string | undefined
  /** A reason to read again arrived after the last read began. */
  #stale = false
  #reading: Promise<boolean> | undefined
  #queued: Promise<boolean> | undefined
  #retryTimer: NodeJS.Timeout | undefined
  #retryMs: number
  #upstreamDown = false
  /** Reads in the background (retries, a pinned line's first read) only once `follow` is called. */
  #following = false
  #closed = false
  #release: () => void = () => undefined
  readonly #closing = new Promise<false>((resolve) => {
    this.#release = () => resolve(false)
  })

  constructor(options: LineWatchOptions) {
    this.#options = options
    this.#pinned = options.setting === 'auto' ? undefined : options.setting
    this.#holdLimitMs = options.holdLimitMs ?? HOLD_LIMIT_MS
    this.#retry = options.retry ?? RETRY
    this.#retryMs = this.#retry.firstMs
  }

  /** The line in force; undefined while none is (auto, before a read settled one). */
  get inForce(): LineInForce | undefined {
    return this.#inForce
  }

  /**
   * Pinned: the line at once. auto: the first read; throws a StartupError when the upstream runs a
   * version no catalogue covers or answers unreadably.
   */
  async start(): Promise<void> {
    if (this.#pinned !== undefined) {
      this.#inForce = { line: this.#pinned, source: 'pinned', upstream: undefined }
      return
    }
    const outcome = await this.#options.probe()
    if (outcome.kind === 'unsupported' || outcome.kind === 'unreadable')
      throw new StartupError('config', refusalAtStart(outcome, this.#options.upstreamUrl))
    if (outcome.kind === 'unreachable') {
      this.#noAnswer(outcome.why)
      return
    }
    this.#inForce = { line: outcome.line, source: 'detected', upstream: outcome }
    this.#options.logger.info({ agentos: this.describe() }, 'AgentOS line detected')
  }

  /**
   * From now on `apply` may be called: reads in the background (a pinned line's first read, the
   * retries of an upstream that did not answer) begin.
   */
  follow(): void {
    this.#following = true
    if (this.#pinned !== undefined) void this.#read()
    else if (this.#unreachable !== undefined) this.#scheduleRetry()
  }

  /**
   * Whether a request may be decided now: at once on the hot path, or after the pending read
   * (bounded). False: refuse it, no line is known to be in force.
   */
  admit(): true | Promise<boolean> {
    if (this.#pinned !== undefined) {
      if (this.#stale) void this.#read()
      return true
    }
    if (this.#inForce !== undefined && !this.#stale && this.#reading === undefined) return true
    if (this.#closed || (!this.#stale && this.#reading === undefined)) return Promise.resolve(false)
    return this.#hold(this.#read())
  }

  /** The upstream may have restarted: read its version now. */
  suspect(): void {
    if (this.#closed) return
    this.#stale = true
    void this.#read()
  }

  /**
   * No connection to the upstream is left: the next request may reach another process. Read the
   * version before that request (not now: reading would open a connection that closes again).
   */
  connectionsClosed(): void {
    if (this.#closed || this.#stale) return
    this.#stale = true
    this.#options.logger.debug(
      'no connection to the upstream is left: its AgentOS version is read again before the next request',
    )
  }

  /** What the readiness probe saw of the upstream: answering again after not answering is a restart. */
  upstreamAnswered(answered: boolean): void {
    const wasDown = this.#upstreamDown
    this.#upstreamDown = !answered
    if (answered && wasDown) this.suspect()
  }

  /** Ready when a line decides requests: pinned always, auto once read and while the upstream answers. */
  readiness(): LineReadiness {
    const ready =
      this.#pinned !== undefined || (this.#inForce !== undefined && this.#unreachable === undefined)
    return { ready, detail: this.describe() }
  }

  /** `3.0 (detected: agno 3.0.0a3)`, `3.0 (pinned; upstream reports agno 2.9.0: a mismatch)`, … */
  describe(): string {
    const inForce = this.#inForce
    const unreachable = this.#unreachable
    if (this.#refusal !== undefined)
      return `none: the upstream reports ${describeReport(this.#refusal)}`
    if (inForce === undefined) {
      const why = unreachable === undefined ? '' : ` (${unreachable})`
      return `unknown: the upstream has not answered${why}; retrying`
    }
    if (inForce.source === 'pinned' && inForce.upstream === undefined && unreachable !== undefined)
      return `${inForce.line} (pinned; upstream not reachable: ${unreachable})`
    const described = describeInForce(inForce)
    return unreachable === undefined || inForce.source === 'pinned'
      ? described
      : `${described}; re-reading: the upstream does not answer (${unreachable})`
  }

  /** The labels of the info metric; undefined while no line is in force. */
  labels(): LineLabels | undefined {
    const inForce = this.#inForce
    if (inForce === undefined) return undefined
    const upstream = inForce.upstream
    const version =
      upstream === undefined || upstream.kind === 'unreadable' ? undefined : upstream.agnoVersion
    return { line: inForce.line, version: version ?? 'unknown', source: inForce.source }
  }

  /** Stops reading; requests waiting for a read are refused. */
  close(): void {
    this.#closed = true
    clearTimeout(this.#retryTimer)
    this.#release()
  }

  /**
   * A read that began after the last reason to read arrived: the one in progress when there was
   * none since it began, else the next (at most one waits behind the one in progress).
   */
  #read(): Promise<boolean> {
    if (this.#queued !== undefined) return this.#queued
    const current = this.#reading
    if (current !== undefined && !this.#stale) return current
    const next: Promise<boolean> =
      current === undefined
        ? this.#readNow()
        : current.then(() => {
            if (this.#queued === next) this.#queued = undefined
            return this.#readNow()
          })
    if (current !== undefined) this.#queued = next
    this.#reading = next
    void next.finally(() => {
      if (this.#reading === next) this.#reading = undefined
    })
    return next
  }

  /** True when, after it, a line is in force that the upstream's answer settled. */
  async #readNow(): Promise<boolean> {
    if (this.#closed) return false
    this.#stale = false
    clearTimeout(this.#retryTimer)
    this.#retryTimer = undefined
    const outcome = await this.#options.probe()
    if (this.#closed) return false
    if (outcome.kind === 'unreachable') {
      this.#noAnswer(outcome.why)
      return false
    }
    this.#unreachable = undefined
    this.#upstreamDown = false
    return this.#pinned === undefined ? this.#settleDetected(outcome) : this.#settlePinned(outcome)
  }

  async #settleDetected(outcome: Detection): Promise<boolean> {
    const logger = this.#options.logger
    if (outcome.kind !== 'line') {
      if (!sameReport(this.#refusal, outcome)) {
        logger.error(
          { agentos: describeReport(outcome), setting: 'upstream.agentos_version' },
          'the upstream runs no AgentOS version Portcullis has a route catalogue for: proxied requests get 503 until it does, or until upstream.agentos_version pins a line',
        )
      }
      this.#refusal = outcome
      this.#inForce = undefined
      this.#scheduleRetry()
      return false
    }
    const previous = this.#inForce
    const next: LineInForce = { line: outcome.line, source: 'detected', upstream: outcome }
    if (!(await this.#apply(next))) return false
    this.#inForce = next
    this.#refusal = undefined
    this.#retryMs = this.#retry.firstMs
    if (previous === undefined) logger.info({ agentos: this.describe() }, 'AgentOS line detected')
    else if (previous.line !== next.line)
      logger.warn({ agentos: this.describe(), previous: previous.line }, 'AgentOS line changed')
    return true
  }

  async #settlePinned(outcome: Detection): Promise<boolean> {
    const previous = this.#inForce as LineInForce
    const next: LineInForce = { ...previous, upstream: outcome }
    this.#retryMs = this.#retry.firstMs
    if (sameReport(previous.upstream, outcome)) return true
    this.#inForce = next
    // Not applied: the next read tries again (it differs from the report in force).
    if (!(await this.#apply(next))) {
      this.#inForce = previous
      return true
    }
    const logger = this.#options.logger
    if (pinContradicted(next)) {
      logger.warn(
        { agentos: this.describe(), setting: 'upstream.agentos_version' },
        pinMismatch(next.line, outcome),
      )
    } else if (pinContradicted(previous)) {
      logger.info({ agentos: this.describe() }, 'the upstream now reports the pinned AgentOS line')
    }
    return true
  }

  async #apply(inForce: LineInForce): Promise<boolean> {
    try {
      await this.#options.apply(inForce)
      return true
    } catch (error) {
      this.#options.logger.error(
        { err: error, line: inForce.line },
        'the AgentOS line cannot be applied: proxied requests get 503 until it can',
      )
      if (this.#pinned === undefined) {
        this.#inForce = undefined
        this.#stale = true
      }
      this.#scheduleRetry()
      return false
    }
  }

  #noAnswer(why: string): void {
    if (this.#unreachable === undefined) {
      const logger = this.#options.logger
      if (this.#pinned === undefined) {
        logger.warn(
          { reason: why, agentos: 'auto' },
          'the upstream does not answer: its AgentOS version is read when it does; until then proxied requests get 503',
        )
      } else {
        // Requests are decided with the pinned line meanwhile; /readyz reports the upstream.
        logger.info(
          { reason: why, agentos: this.#pinned },
          'the upstream does not answer: the pinned AgentOS line is checked against it when it does',
        )
      }
    }
    this.#unreachable = why
    this.#upstreamDown = true
    // auto: the question stays open, and the next request waits for another read.
    if (this.#pinned === undefined) this.#stale = true
    this.#scheduleRetry()
  }

  #scheduleRetry(): void {
    if (!this.#following || this.#closed || this.#retryTimer !== undefined) return
    const delay = this.#retryMs
    this.#retryMs = Math.min(delay * 2, this.#retry.maxMs)
    this.#retryTimer = setTimeout(() => {
      this.#retryTimer = undefined
      void this.#read()
    }, delay)
    this.#retryTimer.unref()
  }

  async #hold(read: Promise<boolean>): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined
    const limit = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), this.#holdLimitMs)
    })
    try {
      return await Promise.race([read, limit, this.#closing])
    } finally {
      clearTimeout(timer)
    }
  }
}

function sameReport(a: Detection | undefined, b: Detection): boolean {
  return JSON.stringify(a) === JSON.stringify(b)
}
