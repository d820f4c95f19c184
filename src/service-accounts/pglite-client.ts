import { existsSync } from 'node:fs'
import { mkdir } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { PGlite, type PGliteOptions } from '@electric-sql/pglite'
import { DataDirLock, type TakeOver } from './data-dir-lock.js'
import { initialiseInChildProcess } from './pglite-init.js'
import { storeTemplateFile } from './pglite-template.js'
import { makeTreePrivate, withPrivateUmask, type PrivacyReport } from './private-files.js'
import type { SqlClient, SqlQueryable, SqlRow } from './sql-client.js'
import { StoreUnavailableError } from './store-errors.js'

/** What opening the embedded store did to its data directory. */
export interface EmbeddedStoreStartup {
  readonly dataDir: string
  /** Access for the group or others found (and removed) before opening: a warning. */
  readonly repairedBeforeOpen: PrivacyReport
  /**
   * How an empty data directory was initialised: from the shipped template, or (no template for
   * the installed PGlite) by initdb in a short-lived child process; null when it held a database.
   */
  readonly initialisedFrom: 'template' | 'initdb' | null
  /** The template unpacked, or the shipped one that was missing when initdb ran. */
  readonly templateFile: string | undefined
  /** The initialising child's peak resident memory, in bytes. */
  readonly initialisePeakRssBytes: number | undefined
  /** This process's resident memory while the child ran: the two add up in one container. */
  readonly parentRssBytes: number | undefined
  /** The directory's lock was left by a process that is gone, and taken over. */
  readonly lockTakenOver: TakeOver | undefined
}

export interface EmbeddedStoreOptions {
  /** The template an empty directory is initialised from; null: run initdb. Default: shipped. */
  readonly template?: string | null
  /**
   * Called if the directory's lock is taken away while open (its file removed or replaced): the
   * client then refuses every statement, and the process should stop (see DataDirLock).
   */
  readonly onLockLost?: (problem: string) => void
}

/**
 * PostgreSQL settings for a store of a few pages used by one process, each paid in resident
 * memory from the start (PGlite touches all of its shared memory): a 2 MB buffer pool (the
 * default, 128 MB, is sized for a database server; 2 MB holds thousands of accounts) and shared
 * memory for a single backend (PGlite is one; the default 100 costs about 4 MB).
 */
const START_PARAMS = [
  ...PGlite.defaultStartParams,
  ...['-c', 'shared_buffers=2MB', '-c', 'max_connections=1'],
]

/**
 * Embedded PostgreSQL (PGlite) with its data in a directory, for running without a database
 * server. One process only, which a lock file in the directory enforces: each process sees only
 * its own writes, so a second one would lose accounts and revocations. PGlite runs one statement
 * at a time, so transactions serialize; LISTEN/NOTIFY stays within this process.
 */
export class PgliteSqlClient implements SqlClient {
  readonly #db: PGlite
  readonly #lock: DataDirLock
  readonly #unlisten: (() => Promise<void>)[] = []
  readonly #onLockLost: ((problem: string) => void) | undefined
  #closed = false
  #lockLost: string | undefined
  readonly startup: EmbeddedStoreStartup

  private constructor(
    db: PGlite,
    lock: DataDirLock,
    startup: EmbeddedStoreStartup,
    onLockLost: ((problem: string) => void) | undefined,
  ) {
    this.#db = db
    this.#lock = lock
    this.startup = startup
    this.#onLockLost = onLockLost
  }

  /**
   * Opens (creating and initialising if missing) the database in `dataDir`, private to this
   * process's user: directories 0700, files 0600. PGlite's Emscripten file system copies the
   * files initdb made with an explicit chmod to 0666, which no umask can narrow, so the tree is
   * made private after every open, and access others had before it is reported. The directory's
   * lock is taken before anything in it is read (DataDirInUseError when another process has it).
   */
  static async open(dataDir: string, options: EmbeddedStoreOptions = {}): Promise<PgliteSqlClient> {
    const path = resolve(dataDir)
    return withPrivateUmask(async () => {
      await mkdir(path, { recursive: true })
      let client: PgliteSqlClient | undefined
      let lostWhileOpening: string | undefined
      const lock = await DataDirLock.acquire(path, {
        onLost: (problem) => {
          if (client === undefined) lostWhileOpening = problem
          else client.#loseLock(problem)
        },
      })
      try {
        client = await PgliteSqlClient.#openLocked(path, lock, options)
      } catch (error) {
        await lock.release()
        throw error
      }
      if (lostWhileOpening !== undefined) client.#loseLock(lostWhileOpening)
      return client
    })
  }

  static async #openLocked(
    path: string,
    lock: DataDirLock,
    options: EmbeddedStoreOptions,
  ): Promise<PgliteSqlClient> {
    const repairedBeforeOpen = await makeTreePrivate(path)
    const initialisation = initialisationOf(path, options)
    // In a child process, which gives its memory back when it exits: initdb runs three
    // PostgreSQL instances at once (about 800 MB, and WebAssembly memory never shrinks);
    // unpacking the template in this process left it tens of megabytes larger.
    const parentRssBytes = initialisation === null ? undefined : process.memoryUsage.rss()
    const initialisePeakRssBytes =
      initialisation === null
        ? undefined
        : await initialiseInChildProcess(
            path,
            initialisation.from === 'template' ? initialisation.template : undefined,
          )
    const db = await PGlite.create(path, pgliteOptions())
    try {
      await makeTreePrivate(path)
    } catch (error) {
      await db.close()
      throw error
    }
    return new PgliteSqlClient(
      db,
      lock,
      {
        dataDir: path,
        repairedBeforeOpen,
        initialisedFrom: initialisation?.from ?? null,
        templateFile: initialisation?.template,
        initialisePeakRssBytes,
        parentRssBytes,
        lockTakenOver: lock.tookOver,
      },
      options.onLockLost,
    )
  }

  /**
   * Creates and initialises (initdb) the database in `dataDir` in this process, then closes it:
   * for the child process that initialises without a template, and to make the template.
   */
  static async initialise(dataDir: string): Promise<void> {
    const path = resolve(dataDir)
    await withPrivateUmask(async () => {
      await mkdir(path, { recursive: true })
      await (await PGlite.create(path, pgliteOptions())).close()
      await makeTreePrivate(path)
    })
  }

  async query(text: string, params: readonly unknown[] = []): Promise<SqlRow[]> {
    return this.#guard(async () => (await this.#db.query<SqlRow>(text, [...params])).rows)
  }

  /** In-process: there is no round trip to save, so this is a plain query. */
  async queryPrepared(_name: string, text: string, params: readonly unknown[]): Promise<SqlRow[]> {
    return this.query(text, params)
  }

  async transaction<T>(fn: (tx: SqlQueryable) => Promise<T>): Promise<T> {
    return this.#guard(() =>
      this.#db.transaction(async (tx) =>
        fn({
          query: async (text, params = []) => (await tx.query<SqlRow>(text, [...params])).rows,
        }),
      ),
    )
  }

  async listen(channel: string, onPayload: (payload: string) => void): Promise<void> {
    this.#unlisten.push(await this.#guard(() => this.#db.listen(channel, onPayload)))
  }

  /**
   * Closes the database, then releases the directory's lock. After the lock was lost the files
   * may be another process's: nothing more is written to them (no closing checkpoint).
   */
  async close(): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    if (this.#lockLost === undefined) {
      for (const unlisten of this.#unlisten.splice(0)) await unlisten().catch(() => undefined)
      await this.#db.close()
    }
    await this.#lock.release()
  }

  #loseLock(problem: string): void {
    this.#lockLost = problem
    this.#onLockLost?.(problem)
  }

  async #guard<T>(fn: () => Promise<T>): Promise<T> {
    if (this.#lockLost !== undefined) {
      throw new StoreUnavailableError(`the data directory's lock was lost: ${this.#lockLost}`)
    }
    try {
      return await fn()
    } catch (error) {
      if (error instanceof Error && error.message === 'PGlite is closed') {
        throw new StoreUnavailableError('embedded database is closed', { cause: error })
      }
      throw error
    }
  }
}

/**
 * PGlite compiles its WebAssembly itself (once per process, for every database opened) and reads
 * its file-system bundle per open, so a serving process holds one copy of each and never compiles
 * initdb, which only the initialising child and the template generator run.
 */
function pgliteOptions(): PGliteOptions {
  return { startParams: START_PARAMS }
}

type Initialisation =
  { from: 'template'; template: string } | { from: 'initdb'; template: string | undefined }

/** How `path` is to be initialised; null when it holds a database. */
function initialisationOf(path: string, options: EmbeddedStoreOptions): Initialisation | null {
  if (existsSync(join(path, 'PG_VERSION'))) return null
  if (options.template === null) return { from: 'initdb', template: undefined }
  const template = options.template ?? storeTemplateFile()
  return existsSync(template) ? { from: 'template', template } : { from: 'initdb', template }
}
