/**
 * Start-up failures as an operator meets them: one line on stderr naming what failed and the
 * setting (and variable) that controls it, the documented exit code, no stack trace unless
 * `logging.level: debug`.
 */
import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { Child, childEnv, cliArgs } from '../../helpers/child-process.js'
import type { Teardown } from '../../helpers/gateway.js'
import { closedPort } from '../../helpers/runtime.js'

const NOBODY = 65534
const isRoot = process.getuid?.() === 0

function portcullis(
  t: Teardown,
  args: string[],
  env: Record<string, string> = {},
  privileges: 'as-tests' | 'unprivileged' = 'as-tests',
): Child {
  return new Child(t, cliArgs(...args), childEnv(env), privileges)
}

/** A temporary directory (readable by every user). */
function tempDir(t: Teardown): string {
  const dir = mkdtempSync(join(tmpdir(), 'portcullis-startup-'))
  chmodSync(dir, 0o755)
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

function tempConfig(t: Teardown, yaml: string): string {
  const file = join(tempDir(t), 'portcullis.yaml')
  writeFileSync(file, yaml, { mode: 0o644 })
  return file
}

async function occupy(t: Teardown): Promise<number> {
  const blocker: Server = createServer()
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => blocker.close(() => resolve())))
  return (blocker.address() as { port: number }).port
}

const NO_STORE =
  'auth: {security_key: a-test-key-8f2c6a0e4b9d3f7a1c5e9b}\nservice_accounts: {enabled: false}\n'
const STACK_LINE = /^\s+at /

void t.test('a port in use: exit 3, one line naming the setting and variable', async (t) => {
  const busy = await occupy(t)
  const free = await closedPort()
  const proxy = portcullis(t, [
    'serve',
    '--config',
    tempConfig(
      t,
      `server: {host: 127.0.0.1, port: ${busy}, admin_host: 127.0.0.1, admin_port: ${free}}\n${NO_STORE}`,
    ),
  ])
  const admin = portcullis(t, [
    'serve',
    '--config',
    tempConfig(
      t,
      `server: {host: 127.0.0.1, port: ${free}, admin_host: 127.0.0.1, admin_port: ${busy}}\n${NO_STORE}`,
    ),
  ])
  const debug = portcullis(t, [
    'serve',
    '--config',
    tempConfig(
      t,
      `server: {host: 127.0.0.1, port: ${busy}, admin_port: 0}\nlogging: {level: debug}\n${NO_STORE}`,
    ),
  ])
  const [proxyExit, adminExit, debugExit] = await Promise.all(
    [proxy, admin, debug].map((child) => child.exit()),
  )
  t.equal(proxyExit?.code, 3)
  t.same(proxy.stderr, [
    `portcullis: cannot listen on 127.0.0.1:${busy} (server.port, PORTCULLIS_PORT): the address is already in use (another process listens there)`,
  ])
  t.equal(adminExit?.code, 3)
  t.same(admin.stderr, [
    `portcullis: cannot listen on 127.0.0.1:${busy} (server.admin_port, PORTCULLIS_ADMIN_PORT): the address is already in use (another process listens there)`,
  ])
  t.equal(debugExit?.code, 3)
  t.match(debug.stderr[0], /^portcullis: cannot listen on [\d.]+:\d+ \(server\.port/)
  t.ok(
    debug.stderr.some((line) => STACK_LINE.test(line)),
    'a stack trace at debug level',
  )
  t.notOk(
    [...proxy.stderr, ...admin.stderr].some((line) => STACK_LINE.test(line)),
    'none otherwise',
  )
})

void t.test('a data directory that cannot be created: exit 4, naming the setting', async (t) => {
  const parent = tempDir(t)
  const file = join(parent, 'a-file')
  writeFileSync(file, '')
  const notADirectory = portcullis(t, ['migrate', '--config', 'config/portcullis.yaml'], {
    OS_SECURITY_KEY: 'k-0123456789abcdef0123456789abcdef',
    PORTCULLIS_DATA_DIR: join(file, 'db'),
  })
  t.equal((await notADirectory.exit()).code, 4)
  t.same(notADirectory.stderr, [
    `portcullis: cannot use the embedded store's data directory ${join(file, 'db')} (database.data_dir, PORTCULLIS_DATA_DIR): a part of the path is not a directory`,
  ])

  // A directory the gateway's user may not write, as /var/lib is for a non-root user.
  const locked = join(parent, 'locked')
  mkdirSync(locked, { mode: 0o555 })
  chmodSync(locked, 0o555)
  // (root may write anywhere: the gateway then runs without that privilege, as an operator would.)
  const denied = portcullis(
    t,
    ['serve', '--config', 'config/portcullis.yaml'],
    {
      OS_SECURITY_KEY: 'k-0123456789abcdef0123456789abcdef',
      PORTCULLIS_DATA_DIR: join(locked, 'db'),
      PORTCULLIS_PORT: '0',
    },
    'unprivileged',
  )
  t.equal((await denied.exit()).code, 4)
  t.same(denied.stderr, [
    `portcullis: cannot use the embedded store's data directory ${join(locked, 'db')} (database.data_dir, PORTCULLIS_DATA_DIR): permission denied`,
  ])
  t.notMatch(denied.stdout.join('\n'), /portcullis listening/)
})

void t.test('migrate with the database down: exit 4, naming the setting', async (t) => {
  const port = await closedPort()
  const child = portcullis(t, ['migrate', '--config', 'config/portcullis.yaml'], {
    DATABASE_URL: `postgres://portcullis:secret-password@127.0.0.1:${port}/portcullis`,
  })
  t.equal((await child.exit()).code, 4)
  t.equal(child.stderr.length, 1, child.stderr.join('\n'))
  t.match(
    child.stderr[0],
    /^portcullis: cannot start the database \(database\.url, DATABASE_URL\): .*ECONNREFUSED/,
  )
  t.notMatch(child.stderr.join('\n'), /secret-password/, 'the URL is never printed')
})

void t.test('a key file that cannot be read: exit 2, naming the setting', async (t) => {
  const dir = tempDir(t)
  const missing = portcullis(t, [
    'serve',
    '--config',
    tempConfig(
      t,
      `identity: {assertion: {enabled: true, signing_keys_file: ${join(dir, 'none.json')}}}\n${NO_STORE}`,
    ),
  ])
  const missingExit = await missing.exit()
  t.equal(missingExit.code, 2)
  t.match(
    missing.stderr.join('\n'),
    `identity.assertion.signing_keys_file: cannot read file ${join(dir, 'none.json')} (ENOENT)`,
  )
  if (!isRoot) {
    t.comment('skipped: a file another user cannot read needs root to set up')
    return
  }
  const jwks = join(dir, 'jwks.json')
  writeFileSync(jwks, '{"keys": []}', { mode: 0o600 })
  chmodSync(jwks, 0o600)
  // Another user's private file.
  chownSync(jwks, NOBODY, NOBODY)
  const unreadable = portcullis(
    t,
    [
      'serve',
      '--config',
      tempConfig(t, `auth: {jwks_file: ${jwks}}\nservice_accounts: {enabled: false}\n`),
    ],
    {},
    'unprivileged',
  )
  t.equal((await unreadable.exit()).code, 2)
  t.match(
    unreadable.stderr.join('\n'),
    `auth.jwks_file: cannot read the JWKS file ${jwks} (EACCES)`,
  )
  t.notOk(
    [...missing.stderr, ...unreadable.stderr].some((line) => STACK_LINE.test(line)),
    'no stack trace',
  )
})
