import type { Clock } from '../../src/clock.js'
import type { Timers } from '../../src/timers.js'

/** A clock the test moves by hand; its monotonic reading moves with the wall clock. */
export class FakeClock implements Clock {
  constructor(public ms: number = Date.now()) {}
  now(): number {
    return this.ms
  }
  monotonic(): number {
    return this.ms
  }
  advance(ms: number): void {
    this.ms += ms
  }
  get seconds(): number {
    return Math.floor(this.ms / 1000)
  }
}

/** Timers on the fake clock: nothing fires until the test says so. */
export class FakeTimers implements Timers {
  readonly #clock: FakeClock
  #pending: { at: number; callback: () => void; cancelled: boolean }[] = []

  constructor(clock: FakeClock) {
    this.#clock = clock
  }

  set(callback: () => void, ms: number): { cancel(): void } {
    const entry = { at: this.#clock.now() + ms, callback, cancelled: false }
    this.#pending.push(entry)
    return {
      cancel: () => {
        entry.cancelled = true
      },
    }
  }

  /** Milliseconds from now until the next timer would fire; undefined when none is pending. */
  get nextDelay(): number | undefined {
    const live = this.#pending.filter((entry) => !entry.cancelled)
    if (live.length === 0) return undefined
    return Math.min(...live.map((entry) => entry.at)) - this.#clock.now()
  }

  get pending(): number {
    return this.#pending.filter((entry) => !entry.cancelled).length
  }

  /** Moves the clock to the next timer and fires it; returns after what it started has run a few ticks. */
  async fireNext(): Promise<void> {
    const delay = this.nextDelay
    if (delay === undefined) throw new Error('no timer pending')
    this.#clock.advance(Math.max(0, delay))
    const due = this.#pending.filter((entry) => !entry.cancelled && entry.at <= this.#clock.now())
    this.#pending = this.#pending.filter((entry) => !due.includes(entry))
    for (const entry of due) entry.callback()
    await settle()
  }
}

/** Lets pending promise callbacks run (a fake answers within a few ticks). */
export async function settle(): Promise<void> {
  for (let index = 0; index < 20; index += 1) await new Promise((resolve) => setImmediate(resolve))
}
