/** Counts requests in progress so that shutdown can wait for them, with a bound. */
export class InFlight {
  #count = 0
  #waiters: (() => void)[] = []

  get count(): number {
    return this.#count
  }

  enter(): void {
    this.#count++
  }

  leave(): void {
    this.#count--
    if (this.#count === 0) for (const resolve of this.#waiters.splice(0)) resolve()
  }

  /** Resolves true when nothing is in flight, false when `timeoutMs` passes first. */
  async drained(timeoutMs: number): Promise<boolean> {
    if (this.#count === 0) return true
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs)
      this.#waiters.push(() => {
        clearTimeout(timer)
        resolve(true)
      })
    })
  }
}
