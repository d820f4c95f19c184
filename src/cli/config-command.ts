import type { Command } from 'commander'
import { describeAuthMode, summarizeAuthMode } from '../config/auth-mode.js'
import { inspectConfig } from '../config/load.js'
import { createLogger } from '../logger.js'
import { checkStartup } from '../startup-check.js'
import { EXIT_CODES } from '../startup-error.js'
import { DEFAULT_CONFIG_PATH } from './defaults.js'

export function registerConfigCommands(program: Command): void {
  const config = program.command('config').description('Inspect configuration')
  config
    .command('check')
    .description(
      "Validate a config file (with the environment applied) as serve does short of opening the store and binding ports (keys, key files, the identity provider's address), and print every problem, the warnings and the resolved paths of the files it names",
    )
    .option('-c, --config <file>', 'config file', DEFAULT_CONFIG_PATH)
    .option('--strict', 'treat warnings as errors (exit 2), for CI')
    .action(async (options: { config: string; strict?: boolean }) => {
      // An invalid file throws a ConfigError: runCli prints every problem and exits 2.
      const inspected = inspectConfig(options.config, { env: process.env })
      const { config: loaded, files } = inspected
      // What serve would refuse is a StartupError: runCli prints serve's line and exits 2.
      const warnings = [...inspected.warnings]
      await checkStartup(
        loaded,
        createLogger({
          level: 'warn',
          destination: { write: (line) => warnings.push(asText(line)) },
        }),
      )
      const summary = summarizeAuthMode(loaded.auth)
      const lines = [
        `${options.config}: valid (auth mode ${describeAuthMode(summary)}, JWT authorization ${summary.authorizationEnabled ? 'on' : 'off'}, upstream ${loaded.upstream.url})`,
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

/** A log record as a line of text: its message, then its details. */
function asText(line: string): string {
  const {
    msg,
    level: _level,
    time: _time,
    service: _service,
    ...details
  } = JSON.parse(line) as Record<string, unknown>
  const shown = Object.entries(details).map(([key, value]) => `${key}: ${JSON.stringify(value)}`)
  return shown.length === 0 ? String(msg) : `${String(msg)} (${shown.join(', ')})`
}
