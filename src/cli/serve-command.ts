import type { Command } from 'commander'
import { ConfigError, loadConfig } from '../config/load.js'
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
  let config
  try {
    config = loadConfig(configPath, { env: process.env })
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`)
      process.exit(2)
    }
    throw error
  }
  const logger = createLogger({ level: config.logging.level })
  const gateway = await createGateway(config, { logger })
  await gateway.start()

  let stopping = false
  const shutdown = (signal: string): void => {
    if (stopping) return
    stopping = true
    logger.info({ signal }, 'shutting down')
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
  process.on('SIGHUP', () => {
    gateway.reload().catch((error: unknown) => logger.error({ err: error }, 'reload failed'))
  })
}
