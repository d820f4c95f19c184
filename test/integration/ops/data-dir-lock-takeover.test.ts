/**
 * The embedded data directory's lock with real processes: a gateway killed outright leaves a lock
 * that the next start takes over (and logs); a gateway that stops normally leaves none; one whose
 * lock file is taken away stops.
 */
import { existsSync, rmSync } from 'node:fs'
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

void t.test('a gateway whose lock file is taken away stops at once, exit 4', async (t) => {
  const dataDir = await freshEmbeddedDataDir(t)
  const gateway = serveEmbeddedStore(t, dataDir)
  await gateway.line(LISTENING, 'the gateway to listen', 90_000)
  rmSync(join(dataDir, 'portcullis.lock'))
  t.equal((await gateway.exit()).code, 4, 'exit code 4')
  const fatal = gateway.stdout
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .find((record) => record.level === 60)
  t.match(fatal, {
    data_dir: dataDir,
    msg: `lost the embedded store's lock (the lock file ${join(dataDir, 'portcullis.lock')} was removed); stopping so that two processes never write one store`,
  })
})
