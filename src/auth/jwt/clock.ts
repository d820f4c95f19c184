/** Wall-clock time in milliseconds; injected so tests can move time without waiting. */
export interface Clock {
  now(): number
}

export const systemClock: Clock = { now: () => Date.now() }
