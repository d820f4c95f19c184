/**
 * Measuring only while the machine runs at its speed. On this kind of virtual machine the host
 * under it slows the CPU for minutes at a time (a plain RS256 verify read 21 µs, then
 * 30–37 µs, then 21 again) while steal and other processes' CPU read zero, so a row measured in
 * a slow spell cannot be compared with one measured outside it. The gate reads the machine's speed
 * (a short plain verify on the system-under-test CPU) before and after each pass over the
 * scenarios and before each timed phase: while a reading is over SLOW_HOST × the fastest of the
 * run, it waits and reads again; a pass with a slow reading at either end is taken again.
 *
 * The reading sees what slows the CPU's own work, not all that slows a proxied request: in one run
 * the gate let through, the verify read 1.1 × and the Koa floor 1.4–1.7 × another run's (loopback
 * and memory work suffer more). It takes the CPU's slow spells out of a run, no more.
 */

/** A reading more than this over the run's fastest is taken as a slowed machine. */
export const SLOW_HOST = 1.1
/** How many times a pass is measured at most while the machine slows during it. */
export const PASS_ATTEMPTS = 3
/** Between two readings while the machine is slow. */
export const WAIT_S = 20
/** The longest wait before one pass or phase (then it is measured anyway, and the report says so). */
export const MAX_WAIT_S = 300
/** The whole run's waiting and retaking, at most; past it, everything is measured as it comes. */
export const RUN_BUDGET_S = 1_800

export interface HostGateOptions {
  /** µs of CPU a plain verify takes now. */
  readonly read: () => Promise<number>
  readonly log: (line: string) => void
  readonly sleep?: (ms: number) => Promise<void>
  /** Seconds since the gate was made (the run budget); the wall clock unless a test sets it. */
  readonly elapsedS?: () => number
  /** False: the readings are taken, but nothing waits and nothing is measured again (`--quick`). */
  readonly patient?: boolean
}

/** A pass as the gate let it through: its readings at either end and how often it was taken. */
export interface GatedPass<T> {
  readonly result: T
  readonly before: number
  readonly after: number
  readonly attempts: number
}

const sleepFor = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

export class HostGate {
  readonly #read: () => Promise<number>
  readonly #log: (line: string) => void
  readonly #sleep: (ms: number) => Promise<void>
  readonly #elapsedS: () => number
  readonly #patient: boolean
  #fastest = Number.POSITIVE_INFINITY
  #spentS = 0

  constructor(options: HostGateOptions) {
    this.#read = options.read
    this.#log = options.log
    this.#sleep = options.sleep ?? sleepFor
    this.#patient = options.patient ?? true
    const started = performance.now()
    this.#elapsedS = options.elapsedS ?? (() => (performance.now() - started) / 1000)
  }

  /** The fastest reading so far (µs a verify); Infinity before the first. */
  get fastest(): number {
    return this.#fastest
  }

  /** Seconds spent waiting for the machine and retaking passes, out of RUN_BUDGET_S. */
  get spentS(): number {
    return this.#spentS
  }

  /** A reading of the machine's speed, which the fastest follows. */
  async reading(): Promise<number> {
    const value = await this.#read()
    this.#fastest = Math.min(this.#fastest, value)
    return value
  }

  /**
   * A reading within SLOW_HOST of the fastest, waiting WAIT_S between readings while it is not,
   * for at most MAX_WAIT_S (and what is left of the run's budget); the last reading then.
   */
  async settled(what: string): Promise<number> {
    let value = await this.reading()
    let waitedS = 0
    while (this.#slow(value) && waitedS + WAIT_S <= MAX_WAIT_S && this.#affords(WAIT_S)) {
      this.#log(
        `machine slowed (a verify ${value.toFixed(1)} µs, fastest ${this.#fastest.toFixed(1)}): ${what} waits ${WAIT_S} s`,
      )
      await this.#sleep(WAIT_S * 1000)
      this.#spentS += WAIT_S
      waitedS += WAIT_S
      value = await this.reading()
    }
    if (this.#slow(value)) {
      this.#log(`machine still slow (a verify ${value.toFixed(1)} µs): ${what} measured anyway`)
    }
    return value
  }

  /**
   * `pass` between two readings, taken again (up to PASS_ATTEMPTS) while either reading is over
   * SLOW_HOST × the fastest; the attempt with the lowest slower reading is kept.
   */
  async pass<T>(what: string, pass: () => Promise<T>): Promise<GatedPass<T>> {
    let kept: Omit<GatedPass<T>, 'attempts'> | undefined
    let attempts = 0
    while (attempts < PASS_ATTEMPTS) {
      attempts += 1
      const before = await this.settled(what)
      const started = this.#elapsedS()
      const result = await pass()
      const after = await this.reading()
      if (kept === undefined || Math.max(before, after) < Math.max(kept.before, kept.after)) {
        kept = { result, before, after }
      }
      if (!this.#slow(Math.max(before, after))) break
      const tookS = this.#elapsedS() - started
      const again = attempts < PASS_ATTEMPTS && this.#affords(tookS)
      this.#log(
        `machine slowed during ${what} (a verify ${before.toFixed(1)} µs before, ${after.toFixed(1)} after, fastest ${this.#fastest.toFixed(1)}): ` +
          (again ? 'measured again' : 'the attempt with the fastest readings kept'),
      )
      if (!again) break
      this.#spentS += tookS
    }
    return { ...(kept as Omit<GatedPass<T>, 'attempts'>), attempts }
  }

  #slow(value: number): boolean {
    return value > SLOW_HOST * this.#fastest
  }

  #affords(seconds: number): boolean {
    return this.#patient && this.#spentS + seconds <= RUN_BUDGET_S
  }
}
