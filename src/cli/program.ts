import { Command } from 'commander'
import { registerConfigCommands } from './config-command.js'
import { registerServeCommand } from './serve-command.js'

export const DEFAULT_CONFIG_PATH = 'config/portcullis.yaml'

/** The `portcullis` command line. */
export function createProgram(): Command {
  const program = new Command('portcullis')
    .description('Authentication gateway for AgentOS agent runtimes')
    .showHelpAfterError()
  registerServeCommand(program)
  registerConfigCommands(program)
  return program
}
