import { spawn, type ChildProcess } from 'node:child_process'
import { createInterface } from 'node:readline'
import { BUILT_MAIN, buildGateway } from './built-gateway.js'
import { PROJECT_ROOT } from './project-root.js'
import type { Teardown } from './gateway.js'
import { STRONG_SECURITY_KEY } from './secrets.js'
import { SUITE_AGENTOS_LINE } from './suite-line.js'
import { waitFor, within } from './wait.js'

export { PROJECT_ROOT } from './project-root.js'

/** Environment variables the gateway reads; removed from children so the host cannot leak in. */
const GATEWAY_ENV = [
  'PORTCULLIS_UPSTREAM_URL',
  'PORTCULLIS_AGENTOS_VERSION',
  'PORTCULLIS_PORT',
  'PORTCULLIS_ADMIN_PORT',
  'PORTCULLIS_ADMIN_HOST',
  'JWT_VERIFICATION_KEY',
  'JWT_JWKS_FILE',
  'OS_SECURITY_KEY',
  'PORTCULLIS_AUTH_OPEN',
  'SERVICE_ACCOUNT_CACHE_TTL_SECONDS',
  'DATABASE_URL',
]

/** The environment of a child gateway: the suite's AgentOS line unless `extra` says otherwise. */
export function childEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env }
  for (const name of GATEWAY_ENV) delete env[name]
  // tap's own variables would make a child behave like a test.
  for (const name of Object.keys(env)) if (name.startsWith('TAP')) delete env[name]
  return { ...env, PORTCULLIS_AGENTOS_VERSION: SUITE_AGENTOS_LINE, ...extra }
}

/**
 * The test runner hooks every process a test starts (it adds its instrumentation to NODE_OPTIONS
 * at each spawn, whatever the environment given), which about doubles a child's start-up; the
 * children are not measured (test-process.ts), so `env -u` drops it just before node starts.
 */
const WITHOUT_INSTRUMENTATION = ['env', '-u', 'NODE_OPTIONS']

/**
 * Root without the capabilities that let it ignore file permissions (dropped from the bounding
 * set, so the child's root loses them at exec): it meets EACCES and EPERM on files and directories
 * it does not own as any other user would, while the checkout, which root owns, stays readable
 * wherever it is (running as another user instead failed when a parent directory was private).
 */
const WITHOUT_FILE_OVERRIDES = [
  'setpriv',
  '--bounding-set',
  '-dac_override,-dac_read_search,-fowner,-chown',
  '--',
  ...WITHOUT_INSTRUMENTATION,
]

/** A child process whose output is collected line by line, killed at teardown if still running. */
export class Child {
  readonly process: ChildProcess
  readonly stdout: string[] = []
  readonly stderr: string[] = []
  #exit: Promise<{ code: number | null; signal: NodeJS.Signals | null }>
  #exited = false

  constructor(
    t: Teardown,
    args: readonly string[],
    env: NodeJS.ProcessEnv = childEnv(),
    /** Without the privileges that bypass file permissions: what a non-root operator meets. */
    privileges: 'as-tests' | 'unprivileged' = 'as-tests',
  ) {
    const [command, ...wrapper] =
      privileges === 'unprivileged' && process.getuid?.() === 0
        ? WITHOUT_FILE_OVERRIDES
        : WITHOUT_INSTRUMENTATION
    // `env` and `setpriv` exec node in their place: the pid is node's.
    this.process = spawn(command as string, [...wrapper, process.execPath, ...args], {
      cwd: PROJECT_ROOT,
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
    })
    const proc = this.process
    if (proc.stdout !== null) {
      createInterface({ input: proc.stdout }).on('line', (line) => this.stdout.push(line))
    }
    if (proc.stderr !== null) {
      createInterface({ input: proc.stderr }).on('line', (line) => this.stderr.push(line))
    }
    this.#exit = new Promise((resolve) => {
      proc.once('exit', (code, signal) => {
        this.#exited = true
        resolve({ code, signal })
      })
    })
    t.teardown(() => {
      if (!this.#exited) proc.kill('SIGKILL')
    })
  }

  get exited(): boolean {
    return this.#exited
  }

  /** Resolves with the exit code and signal, or rejects after `timeoutMs`. */
  exit(timeoutMs = 60_000): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
    return within(this.#exit, 'the child process to exit', timeoutMs)
  }

  /** The first stdout line (from `from` on) that satisfies `match`, waiting for it if needed. */
  async line(
    match: (line: string) => boolean,
    what: string,
    timeoutMs = 60_000,
    from = 0,
  ): Promise<string> {
    let found: string | undefined
    await waitFor(
      () => {
        found = this.stdout.slice(from).find(match)
        return found !== undefined || this.#exited
      },
      what,
      timeoutMs,
    )
    if (found === undefined) {
      throw new Error(`child exited before ${what}; stderr:\n${this.stderr.join('\n')}`)
    }
    return found
  }

  /** Writes one command line to stdin and resolves with the next JSON line on stdout. */
  async command(command: string, timeoutMs = 30_000): Promise<Record<string, unknown>> {
    const from = this.stdout.length
    this.process.stdin?.write(`${command}\n`)
    const line = await this.line(() => true, `a reply to ${command}`, timeoutMs, from)
    return JSON.parse(line) as Record<string, unknown>
  }
}

/** `node --import tsx <args>` from the project root. */
export function tsxArgs(...args: string[]): string[] {
  return ['--import', 'tsx', ...args]
}

let built = false

/**
 * `portcullis <args>` as installed: `node dist/main.js <args>`, built by `npm test` before tap
 * starts (and here, once, when dist/ is older than the sources). It starts in a fraction of the
 * time that compiling src/ with tsx takes at every call.
 */
export function cliArgs(...args: string[]): string[] {
  if (!built) buildGateway()
  built = true
  return [BUILT_MAIN, ...args]
}

/**
 * `portcullis serve --config config/portcullis.yaml` (the shipped file) in security-key mode on
 * the embedded store in `dataDir`, on ports 0: a real first start or restart of the default setup.
 */
export function serveEmbeddedStore(
  t: Teardown,
  dataDir: string,
  privileges: 'as-tests' | 'unprivileged' = 'as-tests',
): Child {
  return new Child(
    t,
    cliArgs('serve', '--config', 'config/portcullis.yaml'),
    childEnv({
      OS_SECURITY_KEY: STRONG_SECURITY_KEY,
      PORTCULLIS_DATA_DIR: dataDir,
      PORTCULLIS_PORT: '0',
      PORTCULLIS_ADMIN_PORT: '0',
    }),
    privileges,
  )
}
