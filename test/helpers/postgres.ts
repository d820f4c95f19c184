import { execFile } from 'node:child_process'
import { existsSync, readFileSync, readdirSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import pg from 'pg'

const run = promisify(execFile)
const PG_ROOT = '/usr/lib/postgresql'
const SERVICE_USER = 'postgres'

export interface Teardown {
  teardown(fn: () => unknown): void
}

/** A PostgreSQL server of its own for one test file, on 127.0.0.1, removed at teardown. */
export interface PostgresServer {
  /** A database created for the caller. */
  readonly url: string
  readonly port: number
  /** Creates another empty database and returns its URL. */
  createDatabase(): Promise<string>
  /** Fast shutdown: sessions are terminated, data and port are kept. */
  stop(): Promise<void>
  start(): Promise<void>
  restart(): Promise<void>
  /** SIGSTOP the server and its backends: it accepts TCP but never answers, like a hung host. */
  pause(): void
  resume(): void
}

/** The highest installed version's bin directory, or null. */
export function findPostgresBinaries(): string | null {
  if (!existsSync(PG_ROOT)) return null
  const versions = readdirSync(PG_ROOT)
    .filter(
      (name) => /^\d+(\.\d+)?$/.test(name) && existsSync(join(PG_ROOT, name, 'bin', 'pg_ctl')),
    )
    .sort((a, b) => Number.parseFloat(b) - Number.parseFloat(a))
  return versions[0] === undefined ? null : join(PG_ROOT, versions[0], 'bin')
}

/**
 * Undefined when PostgreSQL tests can run; otherwise why they are skipped. With `CI` set, missing
 * binaries are an error, never a silent skip.
 */
export function postgresSkipReason(): string | undefined {
  if (findPostgresBinaries() !== null) return undefined
  const message = `no PostgreSQL binaries under ${PG_ROOT}/*/bin (install the postgresql package)`
  if (process.env.CI !== undefined && process.env.CI !== '') throw new Error(`CI: ${message}`)
  console.error(`\n*** SKIPPING PostgreSQL tests: ${message} ***\n`)
  return message
}

export async function startPostgres(t: Teardown): Promise<PostgresServer> {
  const bin = findPostgresBinaries()
  if (bin === null) throw new Error(`no PostgreSQL binaries under ${PG_ROOT}`)
  const asRoot = process.getuid?.() === 0
  // initdb and postgres refuse to run as root; CI runs as root, so run them as `postgres`.
  const exec = (tool: string, args: string[]) =>
    asRoot ? runAsServiceUser([join(bin, tool), ...args]) : run(join(bin, tool), args)
  const dir = await mkdtemp(join(tmpdir(), 'portcullis-pg-'))
  if (asRoot) await run('chown', [SERVICE_USER, dir])
  const data = join(dir, 'data')
  await exec('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync'])
  const port = await freePort()
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off -c synchronous_commit=off`
  const start = async () => {
    const log = join(dir, 'server.log')
    try {
      await exec('pg_ctl', ['-D', data, '-l', log, '-o', options, '-w', '-t', '30', 'start'])
    } catch (error) {
      const tail = existsSync(log) ? readFileSync(log, 'utf8').slice(-2_000) : ''
      throw new Error(`PostgreSQL did not start:\n${tail}`, { cause: error })
    }
  }
  const stop = async (mode: 'fast' | 'immediate' = 'fast') => {
    await exec('pg_ctl', ['-D', data, '-m', mode, '-w', '-t', '30', 'stop'])
  }
  const signal = (name: NodeJS.Signals) => {
    for (const pid of serverProcesses(data)) {
      try {
        process.kill(pid, name)
      } catch (error) {
        // A backend may exit between listing and signalling it.
        if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error
      }
    }
  }
  await start()
  // If the test process dies without teardown, take the server down with it.
  const onExit = () => signal('SIGQUIT')
  process.once('exit', onExit)
  t.teardown(async () => {
    process.removeListener('exit', onExit)
    signal('SIGCONT')
    await stop('immediate').catch(() => undefined)
    await rm(dir, { recursive: true, force: true })
  })

  const base = `postgres://postgres@127.0.0.1:${port}`
  let databases = 0
  const createDatabase = async () => {
    databases += 1
    const name = `portcullis_test_${databases}`
    const admin = new pg.Client({ connectionString: `${base}/postgres` })
    await admin.connect()
    try {
      await admin.query(`CREATE DATABASE ${name}`)
    } finally {
      await admin.end()
    }
    return `${base}/${name}`
  }
  return {
    url: await createDatabase(),
    port,
    createDatabase,
    stop: () => stop(),
    start,
    restart: async () => {
      await stop()
      await start()
    },
    pause: () => signal('SIGSTOP'),
    resume: () => signal('SIGCONT'),
  }
}

function runAsServiceUser(command: string[]) {
  const runuser = ['/usr/sbin/runuser', '/sbin/runuser'].find((path) => existsSync(path))
  if (runuser !== undefined) return run(runuser, ['-u', SERVICE_USER, '--', ...command])
  const quoted = command.map((part) => `'${part.replaceAll("'", "'\\''")}'`).join(' ')
  return run('su', [SERVICE_USER, '-s', '/bin/sh', '-c', quoted])
}

/** The postmaster (from postmaster.pid) and its children; empty when it is not running. */
function serverProcesses(data: string): number[] {
  let postmaster: number
  try {
    postmaster = Number.parseInt(readFileSync(join(data, 'postmaster.pid'), 'utf8'), 10)
  } catch {
    return []
  }
  if (!Number.isInteger(postmaster)) return []
  try {
    const children = readFileSync(`/proc/${postmaster}/task/${postmaster}/children`, 'utf8')
    return [postmaster, ...children.split(/\s+/).filter(Boolean).map(Number)]
  } catch {
    return [postmaster]
  }
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      const port = typeof address === 'object' && address !== null ? address.port : 0
      server.close(() => resolve(port))
    })
  })
}
