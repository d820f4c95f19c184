import { existsSync } from 'node:fs'
import { mkdir, readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { dirname, join, resolve } from 'node:path'
import { PGlite, type PGliteOptions } from '@electric-sql/pglite'
import { initialiseInChildProcess } from './pglite-init.js'
import { makeTreePrivate, withPrivateUmask, type PrivacyReport } from './private-files.js'
import type { SqlClient, SqlQueryable, SqlRow } from './sql-client.js'
import { StoreUnavailableError } from './store-errors.js'

/** What opening the embedded store did to its data directory. */
export interface EmbeddedStoreStartup {
  readonly dataDir: string
  /** Access for the group or others found (and removed) before opening: a warning. */
  readonly repairedBeforeOpen: PrivacyReport
  /** The directory was empty and was initialised (initdb) by a short-lived child process. */
  readonly initialised: boolean
  /** The initialising child's peak resident memory, in bytes. */
  readonly initialisePeakRssBytes: number | undefined
  /** This process's resident memory while the child ran: the two add up in one container. */
  readonly parentRssBytes: number | undefined
}

/**
 * The embedded PostgreSQL's buffer pool. PostgreSQL's default (128 MB) is sized for a database
 * server; the service-account tables are a few pages, and the pool is paid in resident memory.
 */
const SHARED_BUFFERS = '16MB'

/**
 * Embedded PostgreSQL (PGlite) with its data in a directory, for running without a database
 * server. One process only: two processes must never open the same directory. PGlite runs one
 * statement at a time, so transactions serialize; LISTEN/NOTIFY stays within this process.
 */
export class PgliteSqlClient implements SqlClient {
  readonly #db: PGlite
  readonly #unlisten: (() => Promise<void>)[] = []
  #closed = false
  readonly startup: EmbeddedStoreStartup

  private constructor(db: PGlite, startup: EmbeddedStoreStartup) {
    this.#db = db
    this.startup = startup
  }

  /**
   * Opens (creating and initialising if missing) the database in `dataDir`, private to this
   * process's user: directories 0700, files 0600. PGlite's Emscripten file system copies the
   * files initdb made with an explicit chmod to 0666, which no umask can narrow, so the tree is
   * made private after every open, and access others had before it is reported.
   */
  static async open(dataDir: string): Promise<PgliteSqlClient> {
    const path = resolve(dataDir)
    return withPrivateUmask(async () => {
      await mkdir(path, { recursive: true })
      const repairedBeforeOpen = await makeTreePrivate(path)
      // initdb runs three PostgreSQL instances at once (about 700 MB); WebAssembly memory never
      // shrinks, so it runs in a child process that gives the memory back when it exits.
      const initialised = !existsSync(join(path, 'PG_VERSION'))
      const parentRssBytes = initialised ? process.memoryUsage.rss() : undefined
      const initialisePeakRssBytes = initialised ? await initialiseInChildProcess(path) : undefined
      const db = await PGlite.create(path, await pgliteOptions())
      try {
        await makeTreePrivate(path)
      } catch (error) {
        await db.close()
        throw error
      }
      return new PgliteSqlClient(db, {
        dataDir: path,
        repairedBeforeOpen,
        initialised,
        initialisePeakRssBytes,
        parentRssBytes,
      })
    })
  }

  /** Creates and initialises the database in `dataDir` in this process, then closes it. */
  static async initialise(dataDir: string): Promise<void> {
    const path = resolve(dataDir)
    await withPrivateUmask(async () => {
      await mkdir(path, { recursive: true })
      await (await PGlite.create(path, await pgliteOptions())).close()
      await makeTreePrivate(path)
    })
  }

  async query(text: string, params: readonly unknown[] = []): Promise<SqlRow[]> {
    return guard(async () => (await this.#db.query<SqlRow>(text, [...params])).rows)
  }

  /** In-process: there is no round trip to save, so this is a plain query. */
  async queryPrepared(_name: string, text: string, params: readonly unknown[]): Promise<SqlRow[]> {
    return this.query(text, params)
  }

  async transaction<T>(fn: (tx: SqlQueryable) => Promise<T>): Promise<T> {
    return guard(() =>
      this.#db.transaction(async (tx) =>
        fn({
          query: async (text, params = []) => (await tx.query<SqlRow>(text, [...params])).rows,
        }),
      ),
    )
  }

  async listen(channel: string, onPayload: (payload: string) => void): Promise<void> {
    this.#unlisten.push(await guard(() => this.#db.listen(channel, onPayload)))
  }

  async close(): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    for (const unlisten of this.#unlisten.splice(0)) await unlisten().catch(() => undefined)
    await this.#db.close()
  }
}

async function guard<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn()
  } catch (error) {
    if (error instanceof Error && error.message === 'PGlite is closed') {
      throw new StoreUnavailableError('embedded database is closed', { cause: error })
    }
    throw error
  }
}

// The project compiles against ES2023 without DOM types, where WebAssembly has no declaration.
const wasm = (
  globalThis as unknown as { WebAssembly: { compile(bytes: Uint8Array): Promise<object> } }
).WebAssembly
let modules: Promise<PGliteOptions> | undefined

async function pgliteOptions(): Promise<PGliteOptions> {
  return {
    ...(await compiledModules()),
    startParams: [...PGlite.defaultStartParams, '-c', `shared_buffers=${SHARED_BUFFERS}`],
  }
}

/** PGlite's WebAssembly, compiled once per process however many databases are opened. */
function compiledModules(): Promise<PGliteOptions> {
  modules ??= (async () => {
    const dist = dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite'))
    const read = (file: string): Promise<Buffer> => readFile(join(dist, file))
    const [pglite, initdb, bundle] = await Promise.all([
      read('pglite.wasm'),
      read('initdb.wasm'),
      read('pglite.data'),
    ])
    return {
      pgliteWasmModule: await wasm.compile(pglite),
      initdbWasmModule: await wasm.compile(initdb),
      fsBundle: new Blob([bundle]),
    }
  })()
  return modules
}
