/** Scheduling, injected so tests can fire a refresh without waiting for it. */
export interface Timers {
  /** Runs `callback` once after `ms`; never keeps the process alive. */
  set(callback: () => void, ms: number): { cancel(): void }
}

export const systemTimers: Timers = {
  set(callback, ms) {
    const timer = setTimeout(callback, ms)
    timer.unref()
    return { cancel: () => clearTimeout(timer) }
  },
}
