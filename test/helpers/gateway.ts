import { readFileSync } from 'node:fs'
import { stringify } from 'yaml'
import type { Clock } from '../../src/clock.js'
import { parseConfig } from '../../src/config/load.js'
import type { Config } from '../../src/config/schema.js'
import { createGateway, type Gateway, type RunningGateway } from '../../src/gateway.js'
import { createLogger } from '../../src/logger.js'
import type { AgentOsLine } from '../../src/policy/catalogue/agentos-line.js'
import type { Timers } from '../../src/timers.js'
import { freshEmbeddedDataDir } from './embedded-store.js'
import { LogCapture } from './log-capture.js'
import { SUITE_AGENTOS_LINE } from './suite-line.js'

/** Anything with tap's teardown hook. */
export interface Teardown {
  teardown(fn: () => unknown): void
}

export type ConfigInput = Record<string, unknown>

export interface TestGateway extends RunningGateway {
  readonly gateway: Gateway
  readonly config: Config
  readonly logs: LogCapture
  metrics(): Promise<string>
  stop(): Promise<void>
}

/** Builds a config the way a user would, from YAML, with ports 0 and the given sections merged in. */
export function testConfig(input: ConfigInput, env: Record<string, string> = {}): Config {
  const base: ConfigInput = {
    server: {
      host: '127.0.0.1',
      port: 0,
      admin_host: '127.0.0.1',
      admin_port: 0,
      shutdown_grace_ms: 2_000,
    },
    logging: { level: 'info' },
    ...(env.PORTCULLIS_AGENTOS_VERSION === undefined
      ? { upstream: { agentos_version: SUITE_AGENTOS_LINE } }
      : {}),
  }
  const yaml = stringify(mergeSections(base, input))
  return parseConfig(yaml, 'test config', { env, readFile: (path) => readFileSync(path, 'utf8') })
}

export interface StartOptions {
  /** Process metrics are off unless a test is about them. */
  readonly collectProcessMetrics?: boolean
  /** Pins `upstream.agentos_version` to this line (the suite's line unless given). */
  readonly agentOsLine?: AgentOsLine
  /** The service-account subsystem's time (a FakeClock and FakeTimers to move it by hand). */
  readonly clock?: Clock
  readonly timers?: Timers
}

/** Starts a real gateway on port 0 (and its admin listener), stopped at teardown. */
export async function startGateway(
  t: Teardown,
  input: ConfigInput,
  env: Record<string, string> = {},
  options: StartOptions = {},
): Promise<TestGateway> {
  const pinned =
    options.agentOsLine === undefined
      ? input
      : mergeSections(input, { upstream: { agentos_version: options.agentOsLine } })
  const config = testConfig(await withPrivateStore(t, pinned, env), env)
  const logs = new LogCapture()
  const logger = createLogger({ level: config.logging.level, destination: logs })
  const gateway = await createGateway(config, {
    logger,
    collectProcessMetrics: options.collectProcessMetrics ?? false,
    clock: options.clock,
    timers: options.timers,
  })
  const running = await gateway.start()
  let stopped = false
  const stop = async (): Promise<void> => {
    if (stopped) return
    stopped = true
    await gateway.stop()
  }
  t.teardown(stop)
  return {
    ...running,
    gateway,
    config,
    logs,
    stop,
    metrics: async () => (await fetch(`${running.adminUrl}/metrics`)).text(),
  }
}

/** Unless a test chose a database, each gateway gets its own embedded store (never a shared one). */
async function withPrivateStore(
  t: Teardown,
  input: ConfigInput,
  env: Record<string, string>,
): Promise<ConfigInput> {
  const accounts = input.service_accounts
  if (isPlainObject(accounts) && accounts.enabled === false) return input
  const database = isPlainObject(input.database) ? input.database : {}
  if (
    database.url !== undefined ||
    database.data_dir !== undefined ||
    env.DATABASE_URL !== undefined
  )
    return input
  return { ...input, database: { ...database, data_dir: await freshEmbeddedDataDir(t) } }
}

function mergeSections(base: ConfigInput, input: ConfigInput): ConfigInput {
  const merged: ConfigInput = { ...base }
  for (const [key, value] of Object.entries(input)) {
    const current = merged[key]
    merged[key] = isPlainObject(current) && isPlainObject(value) ? { ...current, ...value } : value
  }
  return merged
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
