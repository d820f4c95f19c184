import { ConfigError } from '../config/load.js'
import { EXIT_CODES, StartupError } from '../startup-error.js'
import { CliError } from './gateway-client.js'

let stackTraces = false

/** Stack traces accompany failure lines only at `logging.level: debug` (or trace). */
export function showStackTraces(level: string): void {
  stackTraces = level === 'debug' || level === 'trace'
}

/**
 * Writes what went wrong as one line (a config error lists every problem, one per line) and
 * returns the exit code. Never a raw stack trace unless debug logging asked for it.
 */
export function reportFailure(error: unknown, write: (text: string) => void): number {
  if (error instanceof ConfigError) {
    write(`${error.message}\n`)
    return EXIT_CODES.config.code
  }
  if (error instanceof StartupError || error instanceof CliError) {
    write(`portcullis: ${error.message}\n`)
    writeStack(error, write)
    return error instanceof StartupError ? error.exitCode : EXIT_CODES.failure.code
  }
  const message = error instanceof Error ? error.message : String(error)
  write(`portcullis: unexpected error: ${message.split('\n')[0] ?? ''}\n`)
  if (!stackTraces) write('portcullis: set logging.level: debug for the stack trace\n')
  writeStack(error, write)
  return EXIT_CODES.failure.code
}

function writeStack(error: unknown, write: (text: string) => void): void {
  if (!stackTraces) return
  let current: unknown = error
  for (let depth = 0; current instanceof Error && depth < 5; depth++) {
    write(`${current.stack ?? current.message}\n`)
    current = current.cause
    if (current instanceof Error) write('caused by: ')
  }
}
