import type { Command } from 'commander'
import { inspectConfig } from '../config/load.js'
import { ConfigReloader } from '../config-reloader.js'
import { createGateway, type Gateway } from '../gateway.js'
import { createLogger } from '../logger.js'
import { DEFAULT_CONFIG_PATH } from './defaults.js'
import { showStackTraces } from './failure.js'

export function registerServeCommand(program: Command): void {
  program
    .command('serve')
    .description('Run the gateway')
    .option('-c, --config <file>', 'config file', DEFAULT_CONFIG_PATH)
    .action(async (options: { config: string }) => {
      await serve(options.config)
    })
}

async function serve(configPath: string): Promise<void> {
  // A ConfigError here reaches runCli, which prints every problem and exits 2 before anything listens.
  const { config, warnings } = inspectConfig(configPath, { env: process.env })
  showStackTraces(config.logging.level)
  const logger = createLogger({ level: config.logging.level })
  // The gateway logs the security warnings itself (on every reload too); the rest are the file's.
  for (const warning of warnings.filter((text) => text.startsWith('the file'))) {
    logger.warn({ config: configPath }, warning)
  }
  // A StartupError (port in use, store unusable) reaches runCli: one line and its exit code.
  const gateway = await createGateway(config, { logger })
  try {
    await gateway.start()
  } catch (error) {
    await gateway.stop().catch(() => undefined)
    throw error
  }
  const reloader = new ConfigReloader(configPath, gateway, logger, process.env)
  if (config.server.watch_config) await reloader.watch()
  handleSignals(gateway, reloader, logger)
}

function handleSignals(
  gateway: Gateway,
  reloader: ConfigReloader,
  logger: ReturnType<typeof createLogger>,
): void {
  let stopping = false
  const shutdown = (signal: string): void => {
    if (stopping) return
    stopping = true
    logger.info({ signal }, 'shutting down')
    reloader.stop()
    gateway.stop().then(
      // pino may still hold lines (the last access logs); they must not be lost on exit.
      () => logger.flush(() => process.exit(0)),
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed')
        process.exit(1)
      },
    )
  }
  // However the process ends (an uncaught error included), held access lines are written.
  process.once('exit', () => gateway.flushLogsForExit())
  process.on('SIGTERM', () => shutdown('SIGTERM'))
  process.on('SIGINT', () => shutdown('SIGINT'))
  // SIGHUP re-reads the config file, and with it the JWKS file and secret files.
  process.on('SIGHUP', () => {
    reloader
      .reload('signal')
      .catch((error: unknown) => logger.error({ err: error }, 'reload failed'))
  })
}
