import { createReadStream, createWriteStream, existsSync, readFileSync } from 'node:fs'
import { readdir, rename, rm } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { dirname, join, relative } from 'node:path'
import { pipeline } from 'node:stream/promises'
import { constants, createBrotliCompress, createBrotliDecompress } from 'node:zlib'
import { PACKAGE_ROOT } from '../package-root.js'
import { LOCK_FILE } from './data-dir-lock.js'

/**
 * An initialised embedded-store data directory for the PGlite version installed (PGlite's initdb,
 * then Portcullis's migrations), shipped as `store-template/pglite-<version>.tar.br` and made by
 * `npm run gen:store-template`. Unpacking it costs a first start under 100 MB, in a child process;
 * initdb costs about 800 MB (three PostgreSQL instances in WebAssembly), and the migrations cost
 * the serving process tens of megabytes it would keep (PostgreSQL's WebAssembly memory only grows).
 *
 * It holds no secret: PostgreSQL's catalogs with no password (PGlite trusts its one local user),
 * the default configuration, and the cluster's system identifier, which every store made from
 * the same template shares (it only tells WAL archives of different clusters apart).
 */
const TEMPLATE_DIR = join(PACKAGE_ROOT, 'store-template')

/** Written last and unpacked last: until it exists, a directory counts as not initialised. */
const VERSION_FILE = 'PG_VERSION'
/** Left by a running server (or the gateway holding the directory), never part of a template. */
const RUNTIME_FILES = new Set(['postmaster.pid', 'postmaster.opts', LOCK_FILE])

/** The version of the installed @electric-sql/pglite package. */
export function pgliteVersion(): string {
  const entry = createRequire(import.meta.url).resolve('@electric-sql/pglite')
  const manifest = JSON.parse(readFileSync(join(dirname(entry), '..', 'package.json'), 'utf8')) as {
    version: string
  }
  return manifest.version
}

/** Where the template for a PGlite version is (or would be) shipped. */
export function storeTemplateFile(version = pgliteVersion()): string {
  return join(TEMPLATE_DIR, `pglite-${version}.tar.br`)
}

/**
 * Unpacks a template into `dataDir`, streaming, with its files private to this user whatever the
 * umask. The version file comes last, so an interrupted unpacking is started over by the next
 * start. Node's streams rather than tar's own file reading: their back-pressure keeps the 40 MB
 * unpacked out of memory.
 */
export async function unpackStoreTemplate(template: string, dataDir: string): Promise<void> {
  // Loaded only for a first start: a serving process has no use for it.
  const tar = await import('tar')
  await pipeline(
    createReadStream(template),
    createBrotliDecompress(),
    tar.x({ cwd: dataDir, strict: true, preserveOwner: false, chmod: true, processUmask: 0o077 }),
  )
}

/**
 * Packs an initialised data directory into a template: entries sorted, no owners or times, so
 * that the archive depends only on the files' contents; the version file last.
 */
export async function packStoreTemplate(dataDir: string, template: string): Promise<void> {
  const entries: string[] = []
  const visit = async (directory: string): Promise<void> => {
    const children = (await readdir(directory, { withFileTypes: true })).sort((a, b) =>
      a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
    )
    for (const child of children) {
      const path = join(directory, child.name)
      const name = relative(dataDir, path)
      if (RUNTIME_FILES.has(name) || name === VERSION_FILE) continue
      entries.push(name)
      if (child.isDirectory()) await visit(path)
    }
  }
  await visit(dataDir)
  if (!existsSync(join(dataDir, VERSION_FILE))) throw new Error(`${dataDir} is not initialised`)
  entries.push(VERSION_FILE)
  const partial = `${template}.partial`
  const tar = await import('tar')
  try {
    await pipeline(
      tar.c({ cwd: dataDir, portable: true, noMtime: true, noDirRecurse: true }, entries),
      createBrotliCompress({
        params: {
          [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
          // An 8 MB window: unpacking needs that much memory, not the 16 MB of the largest.
          [constants.BROTLI_PARAM_LGWIN]: 23,
        },
      }),
      createWriteStream(partial),
    )
    await rename(partial, template)
  } finally {
    await rm(partial, { force: true })
  }
}
