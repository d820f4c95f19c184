// Runs in a test process of its own: embedded stores, open until the end (scripts/test-groups.ts).
import { existsSync, lstatSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { cp, mkdtemp, rm, truncate } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, relative } from 'node:path'
import t from 'tap'
import * as tar from 'tar'
import { createLogger } from '../../../src/logger.js'
import { MIGRATIONS } from '../../../src/service-accounts/migrations/index.js'
import { PgliteSqlClient } from '../../../src/service-accounts/pglite-client.js'
import {
  packStoreTemplate,
  pgliteVersion,
  storeTemplateFile,
  unpackStoreTemplate,
} from '../../../src/service-accounts/pglite-template.js'
import { SqlServiceAccountStore } from '../../../src/service-accounts/sql-store.js'

const root = await mkdtemp(join(tmpdir(), 'portcullis-template-'))
t.teardown(() => rm(root, { recursive: true, force: true }))

/** Every entry under `dir` with its mode and, for files, its contents. */
function tree(dir: string): Map<string, string> {
  const found = new Map<string, string>()
  const visit = (path: string): void => {
    const stat = lstatSync(path)
    const mode = (stat.mode & 0o777).toString(8)
    if (stat.isDirectory()) {
      if (path !== dir) found.set(relative(dir, path), `dir ${mode}`)
      for (const entry of readdirSync(path)) visit(join(path, entry))
    } else {
      found.set(relative(dir, path), `${mode} ${readFileSync(path).toString('base64')}`)
    }
  }
  visit(dir)
  return found
}

const shipped = storeTemplateFile()

void t.test('a template is shipped for the installed PGlite', async (t) => {
  t.ok(
    existsSync(shipped),
    `store-template/pglite-${pgliteVersion()}.tar.br exists (npm run gen:store-template)`,
  )
})

void t.test('an empty directory is initialised from it, migrated and private', async (t) => {
  const dataDir = join(root, 'first-start')
  const client = await PgliteSqlClient.open(dataDir)
  t.match(client.startup, { initialisedFrom: 'template', templateFile: shipped })
  const store = new SqlServiceAccountStore(client, { logger: createLogger({ level: 'silent' }) })
  t.teardown(() => store.close())
  t.same(
    (await store.migrate()).applied,
    [],
    `every migration is in the template (${MIGRATIONS.length}); else npm run gen:store-template`,
  )
  for (const table of ['portcullis_service_accounts', 'portcullis_resource_owners']) {
    t.same(await client.query(`SELECT count(*)::int AS n FROM ${table}`), [{ n: 0 }], table)
  }
  const modes = new Set(
    [...tree(dataDir).values()].map((entry) =>
      entry.startsWith('dir') ? entry : entry.split(' ')[0],
    ),
  )
  t.same([...modes].sort(), ['600', 'dir 700'].sort(), 'directories 0700, files 0600')
})

void t.test('packing and unpacking keep every file, mode and byte; the version last', async (t) => {
  const source = await mkdirp(join(root, 'source', 'base', '1'))
  const dataDir = join(root, 'source')
  writeFileSync(join(dataDir, 'PG_VERSION'), '17\n', { mode: 0o600 })
  writeFileSync(join(dataDir, 'postmaster.pid'), '123\n', { mode: 0o600 })
  writeFileSync(join(dataDir, 'postgresql.conf'), 'x = 1\n', { mode: 0o600 })
  writeFileSync(join(source, '1259'), Buffer.alloc(65_536, 7), { mode: 0o600 })
  const packed = join(root, 'packed.tar.br')
  await packStoreTemplate(dataDir, packed)
  const names: string[] = []
  await tar.t({ file: packed, brotli: true, onReadEntry: (entry) => names.push(entry.path) })
  t.same(
    names,
    ['base/', 'base/1/', 'base/1/1259', 'postgresql.conf', 'PG_VERSION'],
    'sorted, without the server’s pid file, PG_VERSION last: an unpacking cut short has none',
  )
  const copy = await mkdirp(join(root, 'copy'))
  await unpackStoreTemplate(packed, copy)
  const expected = tree(dataDir)
  expected.delete('postmaster.pid')
  t.same(tree(copy), expected)
  const again = join(root, 'packed-again.tar.br')
  await packStoreTemplate(copy, again)
  t.same(readFileSync(again), readFileSync(packed), 'the archive depends only on the files')
  await t.rejects(packStoreTemplate(join(root, 'source', 'base'), join(root, 'x.tar.br')), {
    message: /is not initialised/,
  })
})

void t.test('an interrupted unpacking leaves a directory that counts as empty', async (t) => {
  const cut = join(root, 'cut.tar.br')
  await cp(shipped, cut)
  await truncate(cut, 200_000)
  const dataDir = await mkdirp(join(root, 'interrupted'))
  await t.rejects(unpackStoreTemplate(cut, dataDir))
  t.notOk(existsSync(join(dataDir, 'PG_VERSION')))
  const client = await PgliteSqlClient.open(dataDir)
  t.teardown(() => client.close())
  t.equal(client.startup.initialisedFrom, 'template', 'the next start unpacks it again')
  t.same(await client.query('SELECT 1 AS one'), [{ one: 1 }])
})

async function mkdirp(path: string): Promise<string> {
  const { mkdir } = await import('node:fs/promises')
  await mkdir(path, { recursive: true })
  return path
}
