/**
 * The embedded store's files are private to the gateway's user (directories 0700, files 0600),
 * from the first start on; a data directory others could use is repaired and reported, or
 * refused when it cannot be repaired. Driven through the real CLI.
 */
import { chmodSync, chownSync, lstatSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { serveEmbeddedStore } from '../../helpers/child-process.js'
import type { Teardown } from '../../helpers/gateway.js'

interface Modes {
  readonly directories: Record<string, number>
  readonly files: Record<string, number>
}

function modesUnder(root: string): Modes {
  const modes: Modes = { directories: {}, files: {} }
  const visit = (path: string): void => {
    const stat = lstatSync(path)
    const mode = (stat.mode & 0o777).toString(8)
    const bucket = stat.isDirectory() ? modes.directories : modes.files
    bucket[mode] = (bucket[mode] ?? 0) + 1
    if (stat.isDirectory()) for (const entry of readdirSync(path)) visit(join(path, entry))
  }
  visit(root)
  return modes
}

function ownAll(root: string, uid: number): void {
  chownSync(root, uid, uid)
  for (const entry of readdirSync(root, { withFileTypes: true })) {
    const path = join(entry.parentPath, entry.name)
    if (entry.isDirectory()) ownAll(path, uid)
    else chownSync(path, uid, uid)
  }
}

function everything(root: string, mode: number): void {
  chmodSync(root, mode | 0o111)
  for (const entry of readdirSync(root, { withFileTypes: true })) {
    const path = join(entry.parentPath, entry.name)
    if (entry.isDirectory()) everything(path, mode)
    else chmodSync(path, mode)
  }
}

/** `portcullis serve` on the embedded store in `dataDir` until it listens; then SIGTERM. */
async function serveOnce(
  t: Teardown,
  dataDir: string,
  privileges: 'as-tests' | 'unprivileged' = 'as-tests',
) {
  const child = serveEmbeddedStore(t, dataDir, privileges)
  await child
    .line((line) => line.includes('portcullis listening'), 'the gateway to listen', 90_000)
    .catch(() => undefined)
  if (!child.exited) child.process.kill('SIGTERM')
  const exit = await child.exit()
  const records = child.stdout.map((line) => JSON.parse(line) as Record<string, unknown>)
  return { exit, records, stderr: child.stderr }
}

void t.test(
  'a first start makes private files; a later start repairs others’ access',
  async (t) => {
    const root = mkdtempSync(join(tmpdir(), 'portcullis-files-'))
    t.teardown(() => rmSync(root, { recursive: true, force: true }))
    const dataDir = join(root, 'db')
    process.umask(0o022) // the usual umask, which PGlite's own chmod to 0666 ignored

    const first = await serveOnce(t, dataDir)
    t.equal(first.exit.code, 0, first.stderr.join('\n'))
    const modes = modesUnder(dataDir)
    t.same(Object.keys(modes.directories), ['700'], 'every directory 0700')
    t.same(Object.keys(modes.files), ['600'], 'every file 0600')
    t.ok((modes.files['600'] ?? 0) > 500, 'a whole PostgreSQL data directory')
    const initialised = first.records.find(
      (record) => record.msg === 'embedded store initialised (files private to this user)',
    )
    t.ok(initialised, 'the first start says it initialised the store')
    t.ok(Number(initialised?.peak_rss_bytes) > 0, 'with the initialising process’s peak memory')

    everything(dataDir, 0o666)
    const second = await serveOnce(t, dataDir)
    t.equal(second.exit.code, 0)
    const repaired = second.records.find((record) => record.level === 40)
    t.match(repaired, {
      msg: 'the data directory gave its group or others access; made private (directories 0700, files 0600)',
      data_dir: dataDir,
    })
    t.ok(Number(repaired?.writable_by_others) > 500, 'the world-writable entries are counted')
    t.same(Object.keys(modesUnder(dataDir).files), ['600'], 'private again')
    t.same(Object.keys(modesUnder(dataDir).directories), ['700'])

    if (process.getuid?.() !== 0) {
      t.comment('skipped: refusing a directory the gateway cannot repair needs another user')
      return
    }
    // Another user's and open to all: the gateway, without root's file privileges, cannot make
    // it private.
    everything(dataDir, 0o666)
    ownAll(dataDir, 65534)
    const refused = await serveOnce(t, dataDir, 'unprivileged')
    t.equal(refused.exit.code, 4, 'refused')
    t.same(refused.stderr, [
      `portcullis: cannot use the embedded store's data directory ${dataDir} (database.data_dir, PORTCULLIS_DATA_DIR): permission denied`,
    ])
  },
)
