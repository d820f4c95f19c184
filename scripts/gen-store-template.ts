/**
 * `npm run gen:store-template`: makes store-template/pglite-<version>.tar.br, the initialised and
 * migrated embedded-store data directory for the installed PGlite (see src/service-accounts/
 * pglite-template.ts), with PGlite's own initdb (about 800 MB of memory, under a minute), and
 * removes the templates of other versions. Run it after upgrading @electric-sql/pglite or adding
 * a migration (test/unit/service-accounts/pglite-template.test.ts fails until then).
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { basename, dirname, join } from 'node:path'
import { runMigrations } from '../src/service-accounts/migrate.js'
import { PgliteSqlClient } from '../src/service-accounts/pglite-client.js'
import { packStoreTemplate, storeTemplateFile } from '../src/service-accounts/pglite-template.js'

const template = storeTemplateFile()
const root = await mkdtemp(join(tmpdir(), 'portcullis-store-template-'))
try {
  const dataDir = join(root, 'db')
  await PgliteSqlClient.initialise(dataDir)
  const client = await PgliteSqlClient.open(dataDir)
  try {
    await runMigrations(client)
  } finally {
    await client.close()
  }
  await packStoreTemplate(dataDir, template)
} finally {
  await rm(root, { recursive: true, force: true })
}
for (const name of await readdir(dirname(template))) {
  if (name !== basename(template) && name.startsWith('pglite-')) {
    await rm(join(dirname(template), name))
  }
}
process.stdout.write(`${template}\n`)
