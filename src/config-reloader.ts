import { createHash } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { ConfigError, loadConfig } from './config/load.js'
import { watchFileDirectories } from './file-watch.js'
import type { Gateway, ReloadResult } from './gateway.js'
import type { Logger } from './logger.js'

export type ReloadTrigger = 'signal' | 'watch'
export type FileReloadResult =
  ReloadResult | { readonly outcome: 'invalid'; readonly issues: readonly string[] }

const DEBOUNCE_MS = 200

/**
 * Re-reads the config file on SIGHUP (and on change, with `server.watch_config`): a valid file is
 * applied by the gateway, an invalid one is refused with every problem logged and the running
 * config stays. Reloads never overlap.
 */
export class ConfigReloader {
  readonly #path: string
  readonly #gateway: Gateway
  readonly #logger: Logger
  readonly #env: NodeJS.ProcessEnv
  #chain: Promise<unknown> = Promise.resolve()
  #digest: string | undefined
  #stopWatching: (() => void) | undefined
  #timer: NodeJS.Timeout | undefined

  constructor(path: string, gateway: Gateway, logger: Logger, env: NodeJS.ProcessEnv) {
    this.#path = path
    this.#gateway = gateway
    this.#logger = logger
    this.#env = env
  }

  /** Reloads now (queued behind a reload in progress). */
  reload(trigger: ReloadTrigger): Promise<FileReloadResult> {
    const run = this.#chain.then(() => this.#reload(trigger))
    this.#chain = run.catch(() => undefined)
    return run
  }

  async watch(): Promise<void> {
    this.#digest = await this.#fileDigest()
    this.#stopWatching = await watchFileDirectories(
      this.#path,
      () => this.#schedule(),
      this.#logger,
      'config',
    )
  }

  stop(): void {
    clearTimeout(this.#timer)
    this.#stopWatching?.()
  }

  #schedule(): void {
    clearTimeout(this.#timer)
    this.#timer = setTimeout(() => {
      void this.#fileDigest().then((digest) => {
        // Directory events fire for neighbours and for rewrites with the same content.
        // eslint-disable-next-line no-restricted-syntax -- digests of two versions of the config file; no client input
        if (digest === undefined || digest === this.#digest) return
        this.#digest = digest
        return this.reload('watch')
      })
    }, DEBOUNCE_MS)
    this.#timer.unref()
  }

  async #reload(trigger: ReloadTrigger): Promise<FileReloadResult> {
    let next
    try {
      next = loadConfig(this.#path, { env: this.#env })
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error
      this.#gateway.metrics.configReloads.inc({ result: 'invalid' })
      this.#logger.error(
        { trigger, issues: error.issues },
        'config reload refused; the running configuration stays',
      )
      return { outcome: 'invalid', issues: error.issues }
    }
    return this.#gateway.reload(next)
  }

  async #fileDigest(): Promise<string | undefined> {
    try {
      return createHash('sha256')
        .update(await readFile(this.#path))
        .digest('hex')
    } catch {
      return undefined
    }
  }
}
