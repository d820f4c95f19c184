/** Bounded waits: every wait in the tests ends, with a failure that says what was awaited. */

/** Polls `condition` until it holds; rejects after `timeoutMs` naming `what`. */
export async function waitFor(
  condition: () => boolean,
  what: string,
  timeoutMs = 10_000,
  intervalMs = 10,
): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!condition()) {
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, intervalMs))
  }
}

/** Resolves or rejects like `promise`, or rejects after `timeoutMs` naming `what`. */
export async function within<T>(promise: Promise<T>, what: string, timeoutMs = 10_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)),
          timeoutMs,
        )
      }),
    ])
  } finally {
    clearTimeout(timer)
  }
}
