/**
 * Child process entry: initialises the embedded store's data directory given as first argument,
 * by unpacking the template given as second argument, or with initdb when there is none; then
 * reports its peak resident memory to the parent and exits (see pglite-init.ts).
 */
import { unpackStoreTemplate } from './pglite-template.js'

const send = (message: Record<string, unknown>): Promise<void> =>
  new Promise((resolve) => {
    if (process.send === undefined) resolve()
    else process.send(message, () => resolve())
  })

try {
  const [dataDir = '', template = ''] = process.argv.slice(2)
  // PGlite is loaded only to run initdb: unpacking has no use for it.
  if (template === '')
    await (await import('./pglite-client.js')).PgliteSqlClient.initialise(dataDir)
  else await unpackStoreTemplate(template, dataDir)
  // maxRSS is in kibibytes.
  await send({ peakRssBytes: process.resourceUsage().maxRSS * 1024 })
  process.exit(0)
} catch (error) {
  const code = (error as NodeJS.ErrnoException).code
  await send({ error: code === undefined ? String(error) : `${code}: ${(error as Error).message}` })
  process.exit(1)
}
