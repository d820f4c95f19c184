import { Command } from 'commander'
import { buildInfo, describeBuild } from '../build-info.js'
import { EXIT_CODES } from '../startup-error.js'
import { registerAuditCommands } from './audit-command.js'
import { registerConfigCommands } from './config-command.js'
import { reportFailure } from './failure.js'
import { registerJwtCommands } from './jwt-command.js'
import { registerKeysCommands } from './keys-command.js'
import { registerMigrateCommand } from './migrate-command.js'
import { registerServeCommand } from './serve-command.js'
import { registerTokensCommands } from './tokens-command.js'

export { DEFAULT_CONFIG_PATH } from './defaults.js'

/** The exit-code table as `--help` prints it. */
export function exitCodeHelp(): string {
  const rows = Object.values(EXIT_CODES).map(({ code, meaning }) => `  ${code}  ${meaning}`)
  return `\nExit codes:\n${rows.join('\n')}\n`
}

/** The `portcullis` command line. */
export function createProgram(): Command {
  const program = new Command('portcullis')
    .description('Authentication gateway for AgentOS agent runtimes')
    .version(
      describeBuild(buildInfo()),
      '-V, --version',
      'print the version, the commit it was built from and the Node.js version',
    )
    .showHelpAfterError()
    .addHelpText('after', exitCodeHelp())
  registerServeCommand(program)
  registerConfigCommands(program)
  registerTokensCommands(program)
  registerKeysCommands(program)
  registerJwtCommands(program)
  registerMigrateCommand(program)
  registerAuditCommands(program)
  return program
}

/** Runs the CLI; a failure prints one line (see reportFailure) and exits with its code. */
export async function runCli(argv: readonly string[]): Promise<void> {
  try {
    await createProgram().parseAsync([...argv])
  } catch (error) {
    // Exit now: a half-started gateway may still hold handles that would keep the process up.
    process.exit(reportFailure(error, (text) => process.stderr.write(text)))
  }
}
