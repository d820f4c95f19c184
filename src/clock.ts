/**
 * The gateway's time sources, injected wherever a decision depends on time so that tests move
 * time without waiting.
 */
export interface Clock {
  /** Wall-clock milliseconds since the epoch: token expiry, stored and published times. */
  now(): number
  /**
   * Monotonic milliseconds (never goes back, unaffected by wall-clock changes): cache ages,
   * throttle windows, intervals between writes.
   */
  monotonic(): number
}

export const systemClock: Clock = {
  now: () => Date.now(),
  monotonic: () => performance.now(),
}
