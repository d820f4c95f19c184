import type { Command } from 'commander'
import { summarizeAuthMode } from '../config/auth-mode.js'
import { inspectConfig } from '../config/load.js'
import { EXIT_CODES } from '../startup-error.js'
import { DEFAULT_CONFIG_PATH } from './defaults.js'

export function registerConfigCommands(program: Command): void {
  const config = program.command('config').description('Inspect configuration')
  config
    .command('check')
    .description(
      'Validate a config file (with the environment applied) and print every problem, the warnings and the resolved paths of the files it names',
    )
    .option('-c, --config <file>', 'config file', DEFAULT_CONFIG_PATH)
    .option('--strict', 'treat warnings as errors (exit 2), for CI')
    .action((options: { config: string; strict?: boolean }) => {
      // An invalid file throws a ConfigError: runCli prints every problem and exits 2.
      const {
        config: loaded,
        warnings,
        files,
      } = inspectConfig(options.config, {
        env: process.env,
      })
      const summary = summarizeAuthMode(loaded.auth)
      const lines = [
        `${options.config}: valid (auth mode ${summary.mode}, JWT authorization ${summary.authorizationEnabled ? 'on' : 'off'}, upstream ${loaded.upstream.url})`,
        ...files.map((file) => `  ${file.key}: ${file.path}`),
      ]
      process.stdout.write(`${lines.join('\n')}\n`)
      for (const warning of warnings) process.stderr.write(`warning: ${warning}\n`)
      if (options.strict === true && warnings.length > 0) {
        process.stderr.write(
          `${options.config}: ${warnings.length} warning(s), refused because of --strict\n`,
        )
        process.exitCode = EXIT_CODES.config.code
      }
    })
}
