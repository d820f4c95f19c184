/** Counts requests in progress so that shutdown can wait for them, with a bound. */
export class InFlight {
  #count = 0
  #waiters: (() => void)[] = []
  #cutting = false

  /** True once shutdown's grace period is over and remaining connections are being closed. */
  get cutting(): boolean {
    return this.#cutting
  }

  /** Shutdown closes what is left: requests ended from now on were cut, not abandoned. */
  startCutting(): void {
    this.#cutting = true
  }

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
