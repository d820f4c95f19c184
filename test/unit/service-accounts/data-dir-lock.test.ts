/**
 * The embedded store's data-directory lock: one holder at a time, a holder named when refused,
 * locks of holders that are gone taken over (and why), a lost lock reported to its holder.
 * Two real processes on one directory are in test/integration/ops/data-dir-lock.test.ts.
 */
import { spawn } from 'node:child_process'
import { existsSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs'
import { mkdtemp, rm, unlink } from 'node:fs/promises'
import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { checkStoreFree } from '../../../src/service-accounts/create-store.js'
import {
  DataDirInUseError,
  DataDirLock,
  LOCK_FILE,
  removeIfUnchanged,
} from '../../../src/service-accounts/data-dir-lock.js'
import type { LockHolder } from '../../../src/service-accounts/lock-holder.js'
import { StartupError } from '../../../src/startup-error.js'
import type { Teardown } from '../../helpers/gateway.js'
import { within } from '../../helpers/wait.js'

async function dataDir(t: Teardown): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'portcullis-lock-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  return dir
}

/** The pid of a process that has exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' })
  await new Promise((resolve) => child.once('exit', resolve))
  return child.pid ?? 0
}

function writeHolder(dir: string, holder: Partial<LockHolder>, ageSeconds = 0): string {
  const path = join(dir, LOCK_FILE)
  const full: LockHolder = {
    pid: 1,
    host: hostname(),
    since: '2025-01-02T03:04:05.000Z',
    boot: null,
    nonce: 'someone-else',
    ...holder,
  }
  writeFileSync(path, `${JSON.stringify(full)}\n`)
  const when = new Date(Date.now() - ageSeconds * 1000)
  utimesSync(path, when, when)
  return path
}

async function refusal(promise: Promise<unknown>): Promise<DataDirInUseError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  )
  if (!(error instanceof DataDirInUseError)) throw new Error(`not refused: ${String(error)}`)
  return error
}

void t.test('one holder per directory; released, the next one takes it', async (t) => {
  const dir = await dataDir(t)
  const lock = await DataDirLock.acquire(dir)
  t.equal(lock.tookOver, undefined)
  const file = JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8')) as LockHolder
  t.match(file, { pid: process.pid, host: hostname(), since: lock.holder.since })
  t.ok(!Number.isNaN(Date.parse(file.since)), 'since is a time')

  const again = await refusal(DataDirLock.acquire(dir))
  t.equal(again.message, 'it is already open in this process', 'not even by the same process')
  const racing = await Promise.allSettled([DataDirLock.acquire(dir), DataDirLock.acquire(dir)])
  t.same(
    racing.map((result) => result.status),
    ['rejected', 'rejected'],
  )
  await t.rejects(DataDirLock.check(dir), DataDirInUseError)

  await lock.release()
  t.notOk(existsSync(join(dir, LOCK_FILE)), 'the lock file is removed')
  await lock.release()
  await DataDirLock.check(dir)
  const [first, second] = await Promise.allSettled([
    DataDirLock.acquire(dir),
    DataDirLock.acquire(dir),
  ])
  t.equal(first.status, 'fulfilled', 'of two acquires at once, the first wins')
  t.equal(second.status, 'rejected')
  if (first.status === 'fulfilled') await first.value.release()
})

void t.test('a live holder on this machine is named and never taken over', async (t) => {
  const dir = await dataDir(t)
  // The parent of this process is alive; an hour without refresh does not matter on this machine.
  writeHolder(dir, { pid: process.ppid }, 3_600)
  const error = await refusal(DataDirLock.acquire(dir))
  t.equal(
    error.message,
    `it is in use by pid ${process.ppid} on host ${hostname()} since 2025-01-02T03:04:05.000Z`,
  )
  t.equal(error.holder?.pid, process.ppid)
  await t.rejects(DataDirLock.check(dir), { message: error.message })
})

void t.test('a holder that is gone is taken over, saying why', async (t) => {
  const cases: [string, Partial<LockHolder>, number, RegExp][] = [
    ['a process that has exited', { pid: await deadPid() }, 0, /^no process \d+ runs$/],
    [
      'a pid that is now this process (a restarted container)',
      { pid: process.pid },
      0,
      /is now this process/,
    ],
    [
      'a holder of an earlier boot',
      { pid: process.ppid, boot: 'an-earlier-boot' },
      0,
      /restarted since/,
    ],
    [
      'another machine that stopped refreshing',
      { host: 'another-machine' },
      120,
      /not refreshed for 1[12]\d s/,
    ],
  ]
  for (const [what, holder, age, reason] of cases) {
    const dir = await dataDir(t)
    writeHolder(dir, holder, age)
    const bootKnown = existsSync('/proc/sys/kernel/random/boot_id')
    if (holder.boot !== undefined && !bootKnown) continue
    await DataDirLock.check(dir)
    const lock = await DataDirLock.acquire(dir)
    t.match(lock.tookOver?.reason, reason, what)
    t.equal(
      lock.tookOver?.holder?.since,
      '2025-01-02T03:04:05.000Z',
      `${what}: the previous holder`,
    )
    t.equal(
      (JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8')) as LockHolder).nonce,
      lock.holder.nonce,
      `${what}: the file names the new holder`,
    )
    await lock.release()
  }
})

void t.test('another machine that refreshes, or a file being written, holds it', async (t) => {
  const elsewhere = await dataDir(t)
  writeHolder(elsewhere, { host: 'another-machine', pid: 77 }, 5)
  t.match((await refusal(DataDirLock.acquire(elsewhere))).message, /pid 77 on host another-machine/)

  const starting = await dataDir(t)
  writeFileSync(join(starting, LOCK_FILE), '')
  t.equal(
    (await refusal(DataDirLock.acquire(starting))).message,
    'another process is taking it now',
  )
  const old = new Date(Date.now() - 120_000)
  utimesSync(join(starting, LOCK_FILE), old, old)
  const lock = await DataDirLock.acquire(starting)
  t.equal(lock.tookOver?.holder, undefined, 'an empty file left by a crash names nobody')
  await lock.release()
})

void t.test('a lock file removed or replaced under its holder: the holder is told', async (t) => {
  const held = async (change: (dir: string) => Promise<unknown>) => {
    const dir = await dataDir(t)
    let lost: (problem: string) => void = () => {}
    const told = new Promise<string>((resolve) => (lost = resolve))
    const lock = await DataDirLock.acquire(dir, { onLost: (problem) => lost(problem) })
    await change(dir)
    return { dir, lock, problem: await within(told, 'the lost lock', 30_000) }
  }
  const [removed, replaced] = await Promise.all([
    held((dir) => unlink(join(dir, LOCK_FILE))),
    held(async (dir) => writeHolder(dir, { host: 'another-machine' })),
  ])
  t.match(removed.problem, /was removed$/)
  t.match(replaced.problem, /now names another process$/)
  await replaced.lock.release()
  t.ok(existsSync(join(replaced.dir, LOCK_FILE)), "another holder's file is left alone")
  await removed.lock.release()
})

void t.test(
  'a take-over that finds a fresh lock in place of the stale one puts it back',
  async (t) => {
    const dir = await dataDir(t)
    const path = writeHolder(dir, { pid: await deadPid(), nonce: 'fresh' })
    const fresh = readFileSync(path, 'utf8')
    t.equal(await removeIfUnchanged(path, 'the stale text inspected before', 'mine'), false)
    t.equal(readFileSync(path, 'utf8'), fresh, 'the fresh lock is where it was')
    t.same(readdirSync(dir), [LOCK_FILE], 'nothing left aside')
    t.equal(await removeIfUnchanged(path, fresh, 'mine'), true, 'the one inspected is removed')
    t.same(readdirSync(dir), [])
    t.equal(await removeIfUnchanged(path, fresh, 'mine'), false, 'and is gone: nothing to remove')
  },
)

void t.test('released synchronously at exit, only if still its own', async (t) => {
  const dir = await dataDir(t)
  const lock = await DataDirLock.acquire(dir)
  lock.releaseSync()
  t.notOk(existsSync(join(dir, LOCK_FILE)))
  lock.releaseSync()
  const again = await DataDirLock.acquire(dir)
  writeHolder(dir, { host: 'another-machine' })
  again.releaseSync()
  t.ok(existsSync(join(dir, LOCK_FILE)), "another holder's file is left alone")
})

void t.test('checkStoreFree: the line serve would print, without taking the lock', async (t) => {
  const dir = await dataDir(t)
  const database = { url: null, data_dir: dir }
  await checkStoreFree(database)
  const lock = await DataDirLock.acquire(dir)
  t.teardown(() => lock.release())
  const error = await checkStoreFree(database).then(
    () => undefined,
    (caught: unknown) => caught,
  )
  t.ok(error instanceof StartupError)
  t.match(error, {
    reason: 'store',
    message: `cannot use the embedded store's data directory ${dir} (database.data_dir, PORTCULLIS_DATA_DIR): it is already open in this process; one process per data directory: stop that one, or give this one another directory`,
  })
  await checkStoreFree({ url: 'postgres://db.example/portcullis', data_dir: dir })
  t.pass('nothing to check for PostgreSQL')
})
