import { existsSync } from 'node:fs'
import { cp, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { createLogger } from '../../../src/logger.js'
import { createServiceAccountStore } from '../../../src/service-accounts/create-store.js'
import { PgliteSqlClient } from '../../../src/service-accounts/pglite-client.js'
import type { ServiceAccountStore } from '../../../src/service-accounts/store.js'
import { runStoreContract } from '../../contract/service-account-store.js'
import { LogCapture } from '../../helpers/log-capture.js'

const root = await mkdtemp(join(tmpdir(), 'portcullis-pglite-'))
t.teardown(() => rm(root, { recursive: true, force: true }))

// A fresh PGlite directory takes seconds to initialise; copying an initialised one takes little.
// The template's parents do not exist yet: opening must create them. It is made by initdb, not
// from the shipped (already migrated) template, so that the contract sees migrations apply; a
// template file that does not exist is what makes the store fall back to initdb.
const template = join(root, 'nested', 'missing', 'template')
const missingTemplate = join(root, 'no-such-template.tar.br')
const initialised = await PgliteSqlClient.open(template, { template: missingTemplate })
await initialised.close()

let databases = 0
const logger = createLogger({ level: 'warn', destination: new LogCapture() })

runStoreContract(t, async () => {
  databases += 1
  const dataDir = join(root, `db-${databases}`)
  await cp(template, dataDir, { recursive: true })
  let store: Promise<ServiceAccountStore> | undefined
  // One PGlite per directory: the "second store" of the contract is the same instance.
  return {
    open: () =>
      (store ??= createServiceAccountStore(
        {
          url: null,
          data_dir: dataDir,
          pool_max: 1,
          connect_timeout_ms: 1_000,
          query_timeout_ms: 1_000,
        },
        logger,
      )),
  }
})

void t.test('without a template, initdb initialises the store in a child process', async (t) => {
  t.match(initialised.startup, {
    initialisedFrom: 'initdb',
    templateFile: missingTemplate,
    initialisePeakRssBytes: Number,
  })
})

void t.test('the data directory is created when missing and keeps its data', async (t) => {
  t.ok(existsSync(join(template, 'PG_VERSION')), 'created with its parents')
  const dataDir = join(root, 'restarted')
  await cp(template, dataDir, { recursive: true })
  const config = {
    url: null,
    data_dir: dataDir,
    pool_max: 1,
    connect_timeout_ms: 1_000,
    query_timeout_ms: 1_000,
  }
  const first = await createServiceAccountStore(config, logger)
  t.same((await first.migrate()).applied, ['001'])
  await first.close()
  const again = await createServiceAccountStore(config, logger)
  t.teardown(() => again.close())
  t.same((await again.migrate()).applied, [], 'schema kept across restarts')
})
