import { describeAuthMode } from './config/auth-mode.js'
import { restartOnlyChanges, withRestartOnlyKeysOf } from './config/restart-only.js'
import type { Config } from './config/schema.js'
import { configWarnings } from './config/warnings.js'
import {
  createGeneration,
  type AgentOsChoice,
  type Generation,
  type SharedParts,
} from './generation.js'
import type { Logger } from './logger.js'
import type { Metrics } from './metrics.js'
import { AGENTOS_LINES } from './policy/catalogue/agentos-line.js'
import { pinContradicted, type LineInForce } from './upstream/agentos-line-watch.js'

export interface ReloadResult {
  readonly outcome: 'applied' | 'failed'
  /** Keys that changed but only take effect after a restart (listeners, upstream, store). */
  readonly restartRequired: readonly string[]
  readonly error?: string
}

/**
 * The generation in force and the ones still finishing requests. Reloads and line changes build
 * generations one at a time, each from the one in force, and swap them in atomically for new
 * requests; the previous one retires once its WebSockets have closed.
 */
export class Generations {
  readonly #shared: SharedParts
  readonly #logger: Logger
  readonly #metrics: Metrics
  readonly #live = new Set<Generation>()
  #current: Generation
  /** The line the generation in force was built with (undefined: none was known). */
  #applied: LineInForce | undefined
  #swaps: Promise<unknown> = Promise.resolve()

  private constructor(first: Generation, shared: SharedParts, applied: LineInForce | undefined) {
    this.#shared = shared
    this.#logger = shared.logger
    this.#metrics = shared.metrics
    this.#current = first
    this.#applied = applied
    this.#live.add(first)
    warnIfOpen(first, this.#logger)
  }

  /** The first generation, for the line in force (if one is known yet). */
  static async start(
    config: Config,
    shared: SharedParts,
    applied: LineInForce | undefined,
  ): Promise<Generations> {
    const first = await createGeneration(config, shared, agentosChoice(config, applied))
    return new Generations(first, shared, applied)
  }

  get current(): Generation {
    return this.#current
  }

  /** Every generation still serving requests or connections (the one in force included). */
  get live(): readonly Generation[] {
    return [...this.#live]
  }

  /**
   * A line the watch read (or a pinned one the upstream now contradicts or confirms): a new
   * generation when the line or the effective deny_unmapped_routes differs from the one in force.
   */
  applyLine(inForce: LineInForce): Promise<void> {
    return this.#oneAtATime(async () => {
      const current = this.#current
      const choice = agentosChoice(current.config, inForce)
      if (!sameChoice(choice, current.agentos)) {
        this.#swapIn(await createGeneration(current.config, this.#shared, choice, current))
        this.#logger.info(
          { agentos: choice.line, deny_unmapped_routes: choice.denyUnmappedRoutes },
          'requests are decided with the AgentOS line read from the upstream',
        )
      }
      this.#applied = inForce
    })
  }

  /** Builds a generation from `next` and swaps it in; a failure keeps the one in force. */
  reload(next: Config): Promise<ReloadResult> {
    return this.#oneAtATime(() => this.#reload(next))
  }

  async #reload(next: Config): Promise<ReloadResult> {
    const current = this.#current
    const restartRequired = restartOnlyChanges(current.config, next)
    const merged = withRestartOnlyKeysOf(current.config, next)
    let generation: Generation
    try {
      const choice = agentosChoice(merged, this.#applied)
      generation = await createGeneration(merged, this.#shared, choice, current)
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error)
      this.#metrics.configReloads.inc({ result: 'failed' })
      this.#logger.error(
        { err: error },
        'reload failed; the previous configuration stays in effect',
      )
      return { outcome: 'failed', restartRequired, error: message }
    }
    this.#swapIn(generation)
    this.#logger.level = next.logging.level
    this.#metrics.configReloads.inc({ result: 'applied' })
    if (restartRequired.length > 0)
      this.#logger.warn({ keys: restartRequired }, 'these changes take effect only after a restart')
    this.#logger.info({ auth_mode: describeAuthMode(generation.mode) }, 'configuration reloaded')
    warnIfOpen(generation, this.#logger)
    return { outcome: 'applied', restartRequired }
  }

  #oneAtATime<T>(task: () => Promise<T>): Promise<T> {
    const run = this.#swaps.then(task)
    this.#swaps = run.catch(() => undefined)
    return run
  }

  #swapIn(generation: Generation): void {
    const previous = this.#current
    this.#current = generation
    this.#live.add(generation)
    void previous.retire(generation.jwt).then(() => this.#live.delete(previous))
  }
}

/** The configuration's security warnings (the same `config check` prints), at every start and reload. */
function warnIfOpen(generation: Generation, logger: Logger): void {
  for (const warning of configWarnings(generation.config)) logger.warn(warning)
}

/**
 * What a generation decides with. A pinned line the upstream contradicts denies unmapped routes
 * unless the setting says otherwise. While no line is in force (auto, the upstream not read yet)
 * the generation is built for the newest line only so that a configuration that cannot be applied
 * fails the start as it would otherwise; the gate keeps every request away from it, and the line
 * read later replaces it.
 */
function agentosChoice(config: Config, inForce: LineInForce | undefined): AgentOsChoice {
  if (inForce === undefined)
    return { line: AGENTOS_LINES[AGENTOS_LINES.length - 1] ?? '3.0', denyUnmappedRoutes: true }
  return {
    line: inForce.line,
    denyUnmappedRoutes: config.auth.deny_unmapped_routes ?? pinContradicted(inForce),
  }
}

function sameChoice(a: AgentOsChoice, b: AgentOsChoice): boolean {
  return a.line === b.line && a.denyUnmappedRoutes === b.denyUnmappedRoutes
}
