import { mkdtempSync, rmSync } from 'node:fs'
import { cp, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createLogger } from '../../src/logger.js'
import { PgliteSqlClient } from '../../src/service-accounts/pglite-client.js'
import { SqlServiceAccountStore } from '../../src/service-accounts/sql-store.js'
import { currentStoreTemplate } from './built-gateway.js'
import type { Teardown } from './gateway.js'

let template: Promise<string> | undefined

/**
 * A private, already migrated embedded-store directory for one gateway. Initialising PGlite takes
 * seconds, so a template is migrated once and copied for each gateway: the test run's (`npm test`
 * makes it), or, when that one is missing or older than the sources, one of the test process's own.
 */
export async function freshEmbeddedDataDir(t: Teardown): Promise<string> {
  template ??= Promise.resolve(currentStoreTemplate() ?? createTemplate())
  const root = await mkdtemp(join(tmpdir(), 'portcullis-store-'))
  const dataDir = join(root, 'db')
  await cp(await template, dataDir, { recursive: true })
  t.teardown(() => rm(root, { recursive: true, force: true }))
  return dataDir
}

async function createTemplate(): Promise<string> {
  const root = mkdtempSync(join(tmpdir(), 'portcullis-store-template-'))
  process.once('exit', () => rmSync(root, { recursive: true, force: true }))
  const dataDir = join(root, 'db')
  const store = new SqlServiceAccountStore(await PgliteSqlClient.open(dataDir), {
    logger: createLogger({ level: 'silent' }),
  })
  await store.migrate()
  await store.close()
  return dataDir
}
