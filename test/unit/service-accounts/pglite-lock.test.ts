/**
 * The embedded store holds its directory's lock while open: a second open is refused before
 * anything in the directory is read; a lock taken away while open makes every statement fail
 * closed (503 upstream of this), and closing then writes nothing more to the files.
 */
// Runs in a test process of its own: embedded stores, open until the end (scripts/test-groups.ts).
import { existsSync } from 'node:fs'
import { unlink } from 'node:fs/promises'
import { join } from 'node:path'
import t from 'tap'
import { DataDirInUseError, LOCK_FILE } from '../../../src/service-accounts/data-dir-lock.js'
import { PgliteSqlClient } from '../../../src/service-accounts/pglite-client.js'
import { StoreUnavailableError } from '../../../src/service-accounts/store-errors.js'
import { freshEmbeddedDataDir } from '../../helpers/embedded-store.js'
import { within } from '../../helpers/wait.js'

void t.test('open holds the lock; a lost lock fails every statement closed', async (t) => {
  const dataDir = await freshEmbeddedDataDir(t)
  let told: (problem: string) => void = () => {}
  const lost = new Promise<string>((resolve) => (told = resolve))
  const client = await PgliteSqlClient.open(dataDir, { onLockLost: (problem) => told(problem) })
  t.equal(client.startup.lockTakenOver, undefined)
  t.ok(existsSync(join(dataDir, LOCK_FILE)), 'the lock file is there while open')
  await t.rejects(PgliteSqlClient.open(dataDir), DataDirInUseError, 'a second open is refused')
  t.same(await client.query('SELECT 1 AS one'), [{ one: 1 }])

  await unlink(join(dataDir, LOCK_FILE))
  t.match(await within(lost, 'the lost lock', 30_000), /was removed$/)
  await t.rejects(client.query('SELECT 1'), StoreUnavailableError)
  await t.rejects(client.query('SELECT 1'), { message: /^the data directory's lock was lost: / })
  await client.close()
  t.notOk(existsSync(join(dataDir, LOCK_FILE)), 'closing does not take the lock back')
})
