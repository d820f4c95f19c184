/**
 * One process per embedded data directory, with real processes: a second `serve`, a `migrate` and
 * a demo beside a live gateway each exit 4 with one line naming the directory and the holder.
 * (A holder killed outright: data-dir-lock-takeover.test.ts.)
 */
import { readFileSync } from 'node:fs'
import { hostname } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import {
  Child,
  childEnv,
  serveEmbeddedStore,
  cliArgs,
  tsxArgs,
} from '../../helpers/child-process.js'
import { freshEmbeddedDataDir } from '../../helpers/embedded-store.js'
import { isListening } from '../../helpers/ports.js'
import { closedPort } from '../../helpers/runtime.js'
import { STRONG_SECURITY_KEY } from '../../helpers/secrets.js'

const LISTENING = (line: string): boolean => line.includes('portcullis listening')

void t.test('a second process on a live data directory exits 4 naming the holder', async (t) => {
  const dataDir = await freshEmbeddedDataDir(t)
  const first = serveEmbeddedStore(t, dataDir)
  await first.line(LISTENING, 'the first gateway to listen', 90_000)
  const lock = JSON.parse(readFileSync(join(dataDir, 'portcullis.lock'), 'utf8')) as {
    pid: number
    since: string
  }
  t.equal(lock.pid, first.process.pid, 'the lock names the serving process')
  const refusal =
    `portcullis: cannot use the embedded store's data directory ${dataDir} ` +
    `(database.data_dir, PORTCULLIS_DATA_DIR): it is in use by pid ${lock.pid} on host ` +
    `${hostname()} since ${lock.since}; one process per data directory: stop that one, or give ` +
    'this one another directory'

  const runtimePort = await closedPort()
  const [second, migrate, demo] = [
    serveEmbeddedStore(t, dataDir),
    new Child(
      t,
      cliArgs('migrate', '--config', 'config/portcullis.yaml'),
      childEnv({ PORTCULLIS_DATA_DIR: dataDir, OS_SECURITY_KEY: STRONG_SECURITY_KEY }),
    ),
    new Child(
      t,
      tsxArgs('scripts/demo.ts'),
      childEnv({
        PORTCULLIS_DATA_DIR: dataDir,
        DEMO_RUNTIME_PORT: String(runtimePort),
        PORTCULLIS_PORT: '0',
        PORTCULLIS_ADMIN_PORT: '0',
      }),
    ),
  ]
  const exits = await Promise.all([second, migrate, demo].map((child) => child.exit()))
  for (const [index, what] of ['serve', 'migrate', 'the demo'].entries()) {
    const child = [second, migrate, demo][index]
    t.equal(exits[index]?.code, 4, `${what}: exit code 4`)
    t.same(child?.stderr, [refusal], `${what}: one line naming the directory and the holder`)
  }
  t.notOk(await isListening(runtimePort), 'the demo stopped before starting its runtime')
  t.ok(await isListening(Number(new URL(firstUrl(first)).port)), 'the first gateway serves on')
  t.same(
    JSON.parse(readFileSync(join(dataDir, 'portcullis.lock'), 'utf8')),
    lock,
    'and still holds the lock',
  )
})

function firstUrl(child: Child): string {
  const line = child.stdout.find(LISTENING) ?? '{}'
  const record = JSON.parse(line) as { port?: number }
  return `http://127.0.0.1:${record.port ?? 0}`
}
