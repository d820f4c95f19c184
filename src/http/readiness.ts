/** A dependency the gateway needs to serve traffic; `check` rejects when it is not usable. */
export interface ReadinessCheck {
  readonly name: string
  check(): Promise<void>
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
  const results = await Promise.all(
    checks.map(async (check) => {
      let timer: NodeJS.Timeout | undefined
      try {
        await Promise.race([
          check.check(),
          new Promise((_, reject) => {
            timer = setTimeout(() => reject(new Error('timed out')), timeoutMs)
          }),
        ])
        return [check.name, 'ok'] as const
      } catch (error) {
        return [check.name, (error as Error).message || 'failed'] as const
      } finally {
        clearTimeout(timer)
      }
    }),
  )
  return {
    ready: results.every(([, result]) => result === 'ok'),
    checks: Object.fromEntries(results),
  }
}
