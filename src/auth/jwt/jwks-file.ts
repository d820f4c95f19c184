import { createHash } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import type { Logger } from '../../logger.js'
import type { Metrics } from '../../metrics.js'
import { systemClock, type Clock } from '../../clock.js'
import { watchFileDirectories } from '../../file-watch.js'
import type { JwtAlgorithm } from './key-fit.js'
import { parseJson } from './json-document.js'
import { importJwks, JwksFormatError, type JwksKeys } from './key-set.js'

export type JwksReloadTrigger = 'watch' | 'signal' | 'unknown_kid'
export type JwksReloadResult = 'updated' | 'unchanged' | 'failed'

export interface JwksFileOptions {
  readonly path: string
  readonly algorithm: JwtAlgorithm
  /** An unknown `kid` re-reads the file at most once per this many seconds. */
  readonly cooldownSeconds: number
  readonly watch: boolean
  readonly logger: Logger
  readonly metrics?: Metrics | undefined
  readonly clock?: Clock | undefined
  readonly readFile?: ((path: string) => Promise<string>) | undefined
  /** Quiet time after the last change event before the file is read. */
  readonly debounceMs?: number | undefined
}

interface Loaded {
  readonly keys: JwksKeys
  readonly digest: string
  readonly generation: number
}

/**
 * A local JWKS file that can change without a restart: watched (its directory, so atomic renames
 * and the symlink swaps of Kubernetes volumes are seen), reloaded on `reload()` (SIGHUP), and
 * re-read for an unknown `kid` at most once per cooldown. Each load builds a new immutable key
 * set; a failed load keeps the previous one (fail closed with the old keys).
 */
export class JwksFile {
  readonly path: string
  readonly #options: JwksFileOptions
  readonly #clock: Clock
  readonly #read: (path: string) => Promise<string>
  #current: Loaded
  #queue: Promise<unknown> = Promise.resolve()
  #reading: Promise<JwksReloadResult> | undefined
  #lastKidReload = Number.NEGATIVE_INFINITY
  #stopWatching: (() => void) | undefined
  #debounce: NodeJS.Timeout | undefined
  #closed = false

  private constructor(
    options: JwksFileOptions,
    read: (path: string) => Promise<string>,
    current: Loaded,
  ) {
    this.path = options.path
    this.#options = options
    this.#clock = options.clock ?? systemClock
    this.#read = read
    this.#current = current
    options.metrics?.jwksKeys.set({ source: 'file' }, current.keys.count)
  }

  /** Loads the file; throws a plain Error with AgentOS's startup texts when it cannot. */
  static async open(options: JwksFileOptions): Promise<JwksFile> {
    const read = options.readFile ?? ((path: string) => readFile(path, 'utf8'))
    const text = await readText(read, options.path)
    const keys = await parseKeys(text, options)
    const file = new JwksFile(options, read, { keys, digest: sha256(text), generation: 1 })
    if (options.watch) {
      file.#stopWatching = await watchFileDirectories(
        options.path,
        () => file.#scheduleReload(),
        options.logger,
        'JWKS',
      )
    }
    return file
  }

  get keys(): JwksKeys {
    return this.#current.keys
  }

  /** Increases with every change of the key set. */
  get generation(): number {
    return this.#current.generation
  }

  /** Re-reads the file now, after any read in progress, so the newest content always wins. */
  reload(trigger: JwksReloadTrigger = 'signal'): Promise<JwksReloadResult> {
    const run = this.#queue.then(() => this.#readAndSwap(trigger))
    this.#queue = run
    this.#reading = run
    void run.then(() => {
      if (this.#reading === run) this.#reading = undefined
    })
    return run
  }

  /**
   * Called for a `kid` the set lacks: joins a read in progress, else re-reads the file unless the
   * last such read was within the cooldown, so random kids can never cause a reload storm.
   */
  async refreshForUnknownKid(): Promise<void> {
    if (this.#reading !== undefined) {
      await this.#reading
      return
    }
    const now = this.#clock.now()
    if (now - this.#lastKidReload < this.#options.cooldownSeconds * 1000) return
    this.#lastKidReload = now
    await this.reload('unknown_kid')
  }

  close(): void {
    this.#closed = true
    clearTimeout(this.#debounce)
    this.#stopWatching?.()
  }

  async #readAndSwap(trigger: JwksReloadTrigger): Promise<JwksReloadResult> {
    const { logger, metrics, path } = this.#options
    let result: JwksReloadResult
    try {
      const text = await readText(this.#read, path)
      const digest = sha256(text)
      // eslint-disable-next-line no-restricted-syntax -- digests of two versions of a file the operator owns; no client input
      if (digest === this.#current.digest) {
        result = 'unchanged'
      } else {
        const keys = await parseKeys(text, this.#options)
        this.#current = { keys, digest, generation: this.#current.generation + 1 }
        result = 'updated'
        logger.info({ path, keys: keys.count, trigger }, 'JWKS file reloaded')
      }
    } catch (error) {
      result = 'failed'
      const message = error instanceof Error ? error.message : 'unreadable'
      logger.warn(
        { path, trigger, error: message },
        'JWKS reload failed; keeping the previous keys',
      )
    }
    metrics?.jwksReloads.inc({ result, trigger })
    metrics?.jwksKeys.set({ source: 'file' }, this.#current.keys.count)
    return result
  }

  #scheduleReload(): void {
    if (this.#closed) return
    clearTimeout(this.#debounce)
    this.#debounce = setTimeout(() => {
      if (!this.#closed) void this.reload('watch')
    }, this.#options.debounceMs ?? 200)
    this.#debounce.unref()
  }
}

async function readText(read: (path: string) => Promise<string>, path: string): Promise<string> {
  try {
    return await read(path)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT') throw new Error(`JWKS file not found: ${path}`)
    throw new Error(`Cannot read JWKS file ${path} (${code ?? 'unreadable'})`)
  }
}

async function parseKeys(text: string, options: JwksFileOptions): Promise<JwksKeys> {
  const parsed = parseJson(text)
  if ('problem' in parsed) {
    throw new Error(`Invalid JSON in JWKS file ${options.path}: ${parsed.problem}`)
  }
  const document = parsed.value
  const warn = (details: Record<string, unknown>, message: string): void => {
    options.logger.warn({ path: options.path, ...details }, message)
  }
  try {
    return await importJwks(document, options.algorithm, warn)
  } catch (error) {
    if (error instanceof JwksFormatError)
      throw new Error(`JWKS file ${options.path} ${error.message}`)
    throw error
  }
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex')
}
