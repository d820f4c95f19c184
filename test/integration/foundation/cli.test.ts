import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { Child, childEnv, tsxArgs } from '../../helpers/child-process.js'
import type { Teardown } from '../../helpers/gateway.js'

const FIXTURES = 'test/fixtures/configs'

function portcullis(t: Teardown, args: string[], env: Record<string, string> = {}): Child {
  return new Child(t, tsxArgs('src/main.ts', ...args), childEnv(env))
}

async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

function tempConfig(t: Teardown, yaml: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'portcullis-cli-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const file = join(dir, 'portcullis.yaml')
  writeFileSync(file, yaml)
  return file
}

// Each child compiles TypeScript at start; independent ones run side by side.

void t.test('config check: a good file exits 0 with a summary', async (t) => {
  const valid = portcullis(t, ['config', 'check', '--config', `${FIXTURES}/valid.yaml`])
  const shipped = portcullis(t, ['config', 'check', '--config', 'config/portcullis.yaml'], {
    JWT_VERIFICATION_KEY: 'a-test-hs-secret',
  })
  const [validExit, shippedExit] = await Promise.all([valid.exit(), shipped.exit()])

  t.same(validExit, { code: 0, signal: null })
  t.same(valid.stdout, [
    `${FIXTURES}/valid.yaml: valid (auth mode security_key, JWT authorization off, upstream http://127.0.0.1:7777)`,
  ])
  t.same(valid.stderr, [])

  t.equal(shippedExit.code, 0, 'the shipped default file is valid')
  t.same(
    shipped.stdout,
    [
      'config/portcullis.yaml: valid (auth mode jwt, JWT authorization off, upstream http://127.0.0.1:7777)',
    ],
    'with the environment applied (JWT_VERIFICATION_KEY)',
  )
})

void t.test('config check: a bad file exits 2 listing every problem', async (t) => {
  const schema = portcullis(t, [
    'config',
    'check',
    '--config',
    `${FIXTURES}/many-schema-problems.yaml`,
  ])
  const rules = portcullis(t, [
    'config',
    'check',
    '--config',
    `${FIXTURES}/many-rule-problems.yaml`,
  ])
  const missing = portcullis(t, ['config', 'check', '--config', `${FIXTURES}/no-such-file.yaml`])
  const badEnv = portcullis(t, ['config', 'check', '--config', `${FIXTURES}/same-port.yaml`], {
    PORTCULLIS_UPSTREAM_URL: 'not a url',
  })
  const [schemaExit, rulesExit, missingExit, badEnvExit] = await Promise.all(
    [schema, rules, missing, badEnv].map((child) => child.exit()),
  )

  t.same(schemaExit, { code: 2, signal: null })
  t.same(schema.stdout, [])
  const expected = [
    `invalid configuration in ${FIXTURES}/many-schema-problems.yaml:`,
    '  - server.port: Too big: expected number to be <=65535',
    /^ {2}- server\.trusted_proxies\[0\]: must be an IP address or CIDR block/,
    '  - server.unknown_server_key: unknown key',
    '  - upstream.url: Invalid URL',
    /^ {2}- auth\.algorithm: Invalid option/,
    /^ {2}- logging\.level: Invalid option/,
    '  - extra_section: unknown key',
  ]
  t.match(schema.stderr, expected)
  t.equal(schema.stderr.length, expected.length, 'nothing else (no stack trace)')

  t.equal(rulesExit?.code, 2)
  t.equal(
    rules.stderr.filter((line) => line.startsWith('  - ')).length,
    5,
    'all five rule violations',
  )

  t.equal(missingExit?.code, 2)
  t.match(missing.stderr.join('\n'), /cannot read the config file \(ENOENT\)/)

  t.equal(badEnvExit?.code, 2)
  t.match(
    badEnv.stderr.join('\n'),
    /upstream\.url: Invalid URL/,
    'a bad variable is reported by key',
  )
})

void t.test('serve: a bad config exits 2 before anything listens', async (t) => {
  const port = await freePort()
  const file = tempConfig(
    t,
    `server: {host: 127.0.0.1, port: ${port}, admin_port: 0, prot: 1}\nauth: {algorithm: none}\n`,
  )
  const child = portcullis(t, ['serve', '--config', file])
  const rules = portcullis(t, ['serve', '--config', `${FIXTURES}/no-credential-source.yaml`])
  const [exit, rulesExit] = await Promise.all([child.exit(), rules.exit()])
  t.same(exit, { code: 2, signal: null })
  t.match(child.stderr.join('\n'), /server\.prot: unknown key/)
  t.match(child.stderr.join('\n'), /auth\.algorithm: Invalid option/)
  t.notMatch(child.stdout.join('\n'), /portcullis listening/, 'never listened')
  t.equal(rulesExit.code, 2, 'a rule violation too')
  t.match(rules.stderr.join('\n'), /auth: at least one credential source is required/)
  t.notMatch(rules.stdout.join('\n'), /portcullis listening/)
})

void t.test('serve: a config node:http would refuse is caught as a config error', async (t) => {
  // headers_timeout_ms above request_timeout_ms passes the schema, then createServer throws.
  const child = portcullis(t, ['serve', '--config', `${FIXTURES}/timeouts-inverted.yaml`])
  const exit = await child.exit()
  t.equal(exit.code, 2, `exit 2 with the config errors (got ${exit.code})`)
  t.notMatch(child.stderr.join('\n'), /\n\s+at /, 'no stack trace')
})

void t.test('serve: a port in use fails with a non-zero exit, saying why', async (t) => {
  const blocker = createServer()
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => blocker.close(() => resolve())))
  const { port } = blocker.address() as AddressInfo
  const file = tempConfig(
    t,
    `server: {host: 127.0.0.1, port: ${port}, admin_host: 127.0.0.1, admin_port: 0}\n` +
      'auth: {security_key: a-test-key}\nservice_accounts: {enabled: false}\n',
  )
  const child = portcullis(t, ['serve', '--config', file])
  const exit = await child.exit()
  t.not(exit.code, 0, 'a port in use is a failure')
  t.match(child.stderr.join('\n') + child.stdout.join('\n'), /EADDRINUSE/, 'saying why')
})
