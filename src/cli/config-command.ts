import type { Command } from 'commander'
import { ConfigError, loadConfig } from '../config/load.js'
import { summarizeAuthMode } from '../config/auth-mode.js'
import { DEFAULT_CONFIG_PATH } from './defaults.js'

export function registerConfigCommands(program: Command): void {
  const config = program.command('config').description('Inspect configuration')
  config
    .command('check')
    .description('Validate a config file and print every problem')
    .option('-c, --config <file>', 'config file', DEFAULT_CONFIG_PATH)
    .action((options: { config: string }) => {
      try {
        const loaded = loadConfig(options.config, { env: process.env })
        const summary = summarizeAuthMode(loaded.auth)
        process.stdout.write(
          `${options.config}: valid (auth mode ${summary.mode}, JWT authorization ${summary.authorizationEnabled ? 'on' : 'off'}, upstream ${loaded.upstream.url})\n`,
        )
      } catch (error) {
        if (!(error instanceof ConfigError)) throw error
        process.stderr.write(`${error.message}\n`)
        process.exitCode = 2
      }
    })
}
