import { mkdir, readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { dirname, join, resolve } from 'node:path'
import { PGlite, type PGliteOptions } from '@electric-sql/pglite'
import type { SqlClient, SqlQueryable, SqlRow } from './sql-client.js'
import { StoreUnavailableError } from './store-errors.js'

/**
 * Embedded PostgreSQL (PGlite) with its data in a directory, for running without a database
 * server. One process only: two processes must never open the same directory. PGlite runs one
 * statement at a time, so transactions serialize; LISTEN/NOTIFY stays within this process.
 */
export class PgliteSqlClient implements SqlClient {
  readonly #db: PGlite
  readonly #unlisten: (() => Promise<void>)[] = []
  #closed = false

  private constructor(db: PGlite) {
    this.#db = db
  }

  /** Opens (creating if missing) the database in `dataDir`. */
  static async open(dataDir: string): Promise<PgliteSqlClient> {
    const path = resolve(dataDir)
    await mkdir(path, { recursive: true })
    return new PgliteSqlClient(await PGlite.create(path, await compiledModules()))
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
