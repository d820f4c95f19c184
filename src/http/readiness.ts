/**
 * A failed check that says how it failed, in a bounded word (the upstream's failure kind): the
 * `result` of `portcullis_readiness_checks_total`. Any other rejection is `failed`.
 */
export class ReadinessFailure extends Error {
  readonly result: string

  constructor(result: string, message: string) {
    super(message)
    this.name = 'ReadinessFailure'
    this.result = result
  }
}

/** How one check ended: `ok`, a ReadinessFailure's result, `failed`, or `timeout`. */
export type CheckResult = (check: string, result: string) => void

/**
 * A dependency the gateway needs to serve traffic; `check` rejects when it is not usable, and may
 * resolve with a detail (still ready, but degraded: a stale key set). A check whose `applies`
 * says false is left out (a dependency the running config does not have).
 */
export interface ReadinessCheck {
  readonly name: string
  check(): Promise<string | void>
  applies?(): boolean
}

export interface ReadinessReport {
  readonly ready: boolean
  readonly checks: Record<string, string>
}

const TIMED_OUT = 'timed out'

/** Runs every check concurrently, each bounded by `timeoutMs`; `onResult` hears how each ended. */
export async function evaluateReadiness(
  checks: readonly ReadinessCheck[],
  timeoutMs: number,
  onResult: CheckResult = () => undefined,
): Promise<ReadinessReport> {
  const applicable = checks.filter((check) => check.applies?.() ?? true)
  const results = await Promise.all(
    applicable.map(async (check) => {
      let timer: NodeJS.Timeout | undefined
      try {
        const detail = await Promise.race([
          check.check(),
          new Promise<never>((_, reject) => {
            timer = setTimeout(() => reject(new ReadinessFailure('timeout', TIMED_OUT)), timeoutMs)
          }),
        ])
        onResult(check.name, 'ok')
        return [check.name, detail || 'ok', true] as const
      } catch (error) {
        onResult(check.name, error instanceof ReadinessFailure ? error.result : 'failed')
        return [check.name, (error as Error).message || 'failed', false] as const
      } finally {
        clearTimeout(timer)
      }
    }),
  )
  return {
    ready: results.every(([, , passed]) => passed),
    checks: Object.fromEntries(results.map(([name, detail]) => [name, detail])),
  }
}
