import type { Command } from 'commander'
import { describeAuthMode, summarizeAuthMode } from '../config/auth-mode.js'
import { inspectConfig } from '../config/load.js'
import type { Config } from '../config/schema.js'
import { createLogger } from '../logger.js'
import { checkStartup } from '../startup-check.js'
import { EXIT_CODES, StartupError } from '../startup-error.js'
import { describeInForce, pinContradicted } from '../upstream/agentos-line-watch.js'
import { probeAgentOsLine } from '../upstream/agentos-probe.js'
import { pinMismatch, refusalAtStart } from '../upstream/agentos-reports.js'
import { UpstreamClient } from '../upstream/upstream-client.js'
import { DEFAULT_CONFIG_PATH } from './defaults.js'
import { CliError } from './gateway-client.js'

export function registerConfigCommands(program: Command): void {
  const config = program.command('config').description('Inspect configuration')
  config
    .command('check')
    .description(
      "Validate a config file (with the environment applied) as serve does short of opening the store and binding ports (keys, key files, the identity provider's address), and print every problem, the warnings and the resolved paths of the files it names",
    )
    .option('-c, --config <file>', 'config file', DEFAULT_CONFIG_PATH)
    .option('--strict', 'treat warnings as errors (exit 2), for CI')
    .option(
      '--probe-upstream',
      "read the upstream's AgentOS version now (GET /info) and say which line serve would use",
    )
    .action(async (options: { config: string; strict?: boolean; probeUpstream?: boolean }) => {
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
      const agentos =
        options.probeUpstream === true
          ? await probedLine(loaded, warnings)
          : configuredLine(loaded.upstream.agentos_version)
      const summary = summarizeAuthMode(loaded.auth)
      const lines = [
        `${options.config}: valid (auth mode ${describeAuthMode(summary)}, JWT authorization ${summary.authorizationEnabled ? 'on' : 'off'}, upstream ${loaded.upstream.url}, AgentOS ${agentos})`,
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

/** The line the setting chooses, without asking the upstream. */
function configuredLine(setting: Config['upstream']['agentos_version']): string {
  return setting === 'auto' ? 'auto: read from the upstream at start' : `${setting} (pinned)`
}

/**
 * The line `serve` would use, read from the upstream as it would read it: under auto an
 * unsupported or unreadable answer fails as the start would (exit 2, the same line); a pinned line
 * the upstream contradicts is a warning. An upstream that does not answer fails the command.
 */
async function probedLine(config: Config, warnings: string[]): Promise<string> {
  const upstream = new UpstreamClient(config.upstream)
  let outcome
  try {
    outcome = await probeAgentOsLine(upstream, new URL(config.upstream.url).host)
  } finally {
    await upstream.close()
  }
  const setting = config.upstream.agentos_version
  if (outcome.kind === 'unreachable') {
    throw new CliError(
      `the upstream at ${new URL(config.upstream.url).origin} does not answer (${outcome.why}): its AgentOS version cannot be read`,
    )
  }
  if (setting === 'auto') {
    if (outcome.kind !== 'line')
      throw new StartupError('config', refusalAtStart(outcome, config.upstream.url))
    return describeInForce({ line: outcome.line, source: 'detected', upstream: outcome })
  }
  const inForce = { line: setting, source: 'pinned', upstream: outcome } as const
  if (pinContradicted(inForce)) warnings.push(pinMismatch(setting, outcome))
  return describeInForce(inForce)
}
