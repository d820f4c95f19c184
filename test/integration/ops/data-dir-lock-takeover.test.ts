/**
 * The embedded data directory's lock with real processes: a gateway killed outright leaves a lock
 * that the next start takes over (and logs); a gateway that stops normally leaves none.
 */
import { existsSync } from 'node:fs'
import { hostname } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { serveEmbeddedStore } from '../../helpers/child-process.js'
import { freshEmbeddedDataDir } from '../../helpers/embedded-store.js'

const LISTENING = (line: string): boolean => line.includes('portcullis listening')

void t.test('a gateway killed while holding the lock: the next start takes it over', async (t) => {
  const dataDir = await freshEmbeddedDataDir(t)
  const crashed = serveEmbeddedStore(t, dataDir)
  await crashed.line(LISTENING, 'the gateway to listen', 90_000)
  crashed.process.kill('SIGKILL')
  await crashed.exit()
  t.ok(existsSync(join(dataDir, 'portcullis.lock')), 'SIGKILL leaves the lock file')

  const next = serveEmbeddedStore(t, dataDir)
  await next.line(LISTENING, 'the next gateway to listen', 90_000)
  const takeOver = next.stdout
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .find(
      (record) => record.msg === "took over the embedded store's lock from a process that is gone",
    )
  t.match(takeOver, {
    level: 40,
    data_dir: dataDir,
    previous_holder: new RegExp(`^pid ${crashed.process.pid} on host ${hostname()} since `),
    reason: `no process ${crashed.process.pid} runs`,
  })

  next.process.kill('SIGTERM')
  t.equal((await next.exit()).code, 0)
  t.notOk(existsSync(join(dataDir, 'portcullis.lock')), 'a normal stop releases the lock')
})
