import type { Command } from 'commander'
import { loadConfig } from '../config/load.js'
import { ConfigReloader } from '../config-reloader.js'
import { createGateway } from '../gateway.js'
import { createLogger } from '../logger.js'
import { DEFAULT_CONFIG_PATH } from './defaults.js'

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
  const config = loadConfig(configPath, { env: process.env })
  const logger = createLogger({ level: config.logging.level })
  const gateway = await createGateway(config, { logger })
  await gateway.start()
  const reloader = new ConfigReloader(configPath, gateway, logger, process.env)
  if (config.server.watch_config) await reloader.watch()

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
  process.on('SIGTERM', () => shutdown('SIGTERM'))
  process.on('SIGINT', () => shutdown('SIGINT'))
  // SIGHUP re-reads the config file, and with it the JWKS file and secret files.
  process.on('SIGHUP', () => {
    reloader
      .reload('signal')
      .catch((error: unknown) => logger.error({ err: error }, 'reload failed'))
  })
}
