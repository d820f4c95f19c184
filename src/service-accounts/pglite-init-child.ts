/**
 * Child process entry: initialises the embedded store's data directory given as argument, then
 * reports its peak resident memory to the parent and exits (see pglite-init.ts).
 */
import { PgliteSqlClient } from './pglite-client.js'

const send = (message: Record<string, unknown>): Promise<void> =>
  new Promise((resolve) => {
    if (process.send === undefined) resolve()
    else process.send(message, () => resolve())
  })

try {
  await PgliteSqlClient.initialise(process.argv[2] ?? '')
  // maxRSS is in kibibytes.
  await send({ peakRssBytes: process.resourceUsage().maxRSS * 1024 })
  process.exit(0)
} catch (error) {
  const code = (error as NodeJS.ErrnoException).code
  await send({ error: code === undefined ? String(error) : `${code}: ${(error as Error).message}` })
  process.exit(1)
}
