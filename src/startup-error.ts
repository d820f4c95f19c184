/**
 * How the `portcullis` process ends. One table, used by the CLI, its `--help` and
 * docs/operations.md (a test keeps the three in step).
 */
export const EXIT_CODES = {
  ok: { code: 0, meaning: 'success' },
  failure: {
    code: 1,
    meaning: 'a command failed (the line printed says why), or an unexpected error',
  },
  config: {
    code: 2,
    meaning:
      'the configuration is invalid, or a file it names (key, JWKS, secret) cannot be read, or (upstream.agentos_version auto) the upstream runs an AgentOS version no route catalogue covers or does not say which; `config check --strict`: a warning',
  },
  listen: { code: 3, meaning: 'a listener cannot bind its address (port in use, no permission)' },
  store: {
    code: 4,
    meaning:
      'the service-account store cannot start: data directory not usable, database unreachable, migration failed',
  },
} as const

export type ExitReason = keyof typeof EXIT_CODES

/**
 * A failure before the gateway serves, reported as one line naming what failed and the setting
 * (and environment variable) that controls it; the process exits with the reason's code.
 */
export class StartupError extends Error {
  readonly reason: ExitReason

  constructor(reason: ExitReason, message: string, options: { cause?: unknown } = {}) {
    super(message, options)
    this.name = 'StartupError'
    this.reason = reason
  }

  get exitCode(): number {
    return EXIT_CODES[this.reason].code
  }
}

/** `database.data_dir (PORTCULLIS_DATA_DIR)`: a setting and the variable that can fill it. */
export function settingName(key: string, env?: string): string {
  return env === undefined ? key : `${key}, ${env}`
}

/** The short text of a system error code, for one-line messages. */
export function describeSystemError(error: unknown): string {
  const code = (error as NodeJS.ErrnoException | undefined)?.code
  switch (code) {
    case 'EACCES':
    case 'EPERM':
      return 'permission denied'
    case 'ENOENT':
      return 'no such file or directory'
    case 'ENOTDIR':
      return 'a part of the path is not a directory'
    case 'EISDIR':
      return 'is a directory'
    case 'EROFS':
      return 'read-only file system'
    case 'ENOSPC':
      return 'no space left on the device'
    case 'EADDRINUSE':
      return 'the address is already in use (another process listens there)'
    case 'EADDRNOTAVAIL':
      return 'the address is not one of this machine'
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'the host name does not resolve'
    case undefined:
    default:
      return error instanceof Error ? error.message : String(error)
  }
}
