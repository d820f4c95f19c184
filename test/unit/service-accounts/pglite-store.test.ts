// Runs in a test process of its own: embedded stores, open until the end (scripts/test-groups.ts).
import { existsSync } from 'node:fs'
import { cp, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { createLogger } from '../../../src/logger.js'
import { createServiceAccountStore } from '../../../src/service-accounts/create-store.js'
import { MIGRATIONS } from '../../../src/service-accounts/migrations/index.js'
import { runStoreContract } from '../../contract/service-account-store.js'
import { embeddedContractDatabases } from '../../helpers/embedded-contract.js'
import { LogCapture } from '../../helpers/log-capture.js'

// The whole store contract on PGlite: about 25 s alone, over 100 s on a machine whose cores are
// all busy (PGlite's WebAssembly does every statement on this process's one thread).
t.setTimeout(300_000)

const root = await mkdtemp(join(tmpdir(), 'portcullis-pglite-'))
t.teardown(() => rm(root, { recursive: true, force: true }))
const embedded = await embeddedContractDatabases(t)
const logger = createLogger({ level: 'warn', destination: new LogCapture() })

runStoreContract(t, () => embedded.database())

void t.test('without a template, initdb initialises the store in a child process', async (t) => {
  t.match(embedded.startup, {
    initialisedFrom: 'initdb',
    templateFile: embedded.missingTemplate,
    initialisePeakRssBytes: Number,
  })
})

void t.test('the data directory is created when missing and keeps its data', async (t) => {
  t.ok(existsSync(join(embedded.template, 'PG_VERSION')), 'created with its parents')
  const dataDir = join(root, 'restarted')
  await cp(embedded.template, dataDir, { recursive: true })
  const config = {
    url: null,
    data_dir: dataDir,
    pool_max: 1,
    connect_timeout_ms: 1_000,
    query_timeout_ms: 1_000,
  }
  const first = await createServiceAccountStore(config, logger)
  t.same(
    (await first.migrate()).applied,
    MIGRATIONS.map((migration) => migration.version),
  )
  await first.close()
  const again = await createServiceAccountStore(config, logger)
  t.teardown(() => again.close())
  t.same((await again.migrate()).applied, [], 'schema kept across restarts')
})
