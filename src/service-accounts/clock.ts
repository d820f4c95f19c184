/** Time sources, injectable so every time decision can be tested. */
export interface Clock {
  /** Wall-clock milliseconds since the epoch: expiry and stored times. */
  now(): number
  /** Monotonic milliseconds: cache age, throttle windows, last-used intervals. */
  monotonic(): number
}

export const systemClock: Clock = {
  now: () => Date.now(),
  monotonic: () => performance.now(),
}
