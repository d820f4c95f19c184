import { Command } from 'commander'
import { ConfigError } from '../config/load.js'
import { registerConfigCommands } from './config-command.js'
import { CliError } from './gateway-client.js'
import { registerJwtCommands } from './jwt-command.js'
import { registerKeysCommands } from './keys-command.js'
import { registerMigrateCommand } from './migrate-command.js'
import { registerServeCommand } from './serve-command.js'
import { registerTokensCommands } from './tokens-command.js'

export { DEFAULT_CONFIG_PATH } from './defaults.js'

/** The `portcullis` command line. */
export function createProgram(): Command {
  const program = new Command('portcullis')
    .description('Authentication gateway for AgentOS agent runtimes')
    .showHelpAfterError()
  registerServeCommand(program)
  registerConfigCommands(program)
  registerTokensCommands(program)
  registerKeysCommands(program)
  registerJwtCommands(program)
  registerMigrateCommand(program)
  return program
}

/** Runs the CLI; user errors print one line and exit non-zero (2 for configuration errors). */
export async function runCli(argv: readonly string[]): Promise<void> {
  try {
    await createProgram().parseAsync([...argv])
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`)
      process.exit(2)
    }
    if (error instanceof CliError) {
      process.stderr.write(`portcullis: ${error.message}\n`)
      process.exit(1)
    }
    throw error
  }
}
