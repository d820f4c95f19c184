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

/** Runs every check concurrently, each bounded by `timeoutMs`. */
export async function evaluateReadiness(
  checks: readonly ReadinessCheck[],
  timeoutMs: number,
): Promise<ReadinessReport> {
  const applicable = checks.filter((check) => check.applies?.() ?? true)
  const results = await Promise.all(
    applicable.map(async (check) => {
      let timer: NodeJS.Timeout | undefined
      try {
        const detail = await Promise.race([
          check.check(),
          new Promise<never>((_, reject) => {
            timer = setTimeout(() => reject(new Error('timed out')), timeoutMs)
          }),
        ])
        return [check.name, detail || 'ok', true] as const
      } catch (error) {
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
