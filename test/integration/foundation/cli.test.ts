import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import t from 'tap'
import { NO_CREDENTIAL_SOURCE } from '../../../src/config/auth-mode.js'
import { Child, childEnv, PROJECT_ROOT, cliArgs } from '../../helpers/child-process.js'
import { freshEmbeddedDataDir } from '../../helpers/embedded-store.js'
import type { Teardown } from '../../helpers/gateway.js'
import { fixtures } from '../../helpers/jwt.js'
import { closedPort } from '../../helpers/runtime.js'
import { SUITE_AGENTOS_LINE } from '../../helpers/suite-line.js'

const FIXTURES = 'test/fixtures/configs'
const RUNS_OPEN =
  'auth.open: true: the gateway runs open (no JWT source, no security key); requests without a credential are forwarded to the upstream, only service-account tokens are checked'

function portcullis(t: Teardown, args: string[], env: Record<string, string> = {}): Child {
  return new Child(t, cliArgs(...args), childEnv(env))
}

function tempConfig(t: Teardown, yaml: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'portcullis-cli-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  const file = join(dir, 'portcullis.yaml')
  writeFileSync(file, yaml)
  return file
}

// Independent children run side by side.

void t.test('config check: a good file exits 0 with a summary', async (t) => {
  const valid = portcullis(t, ['config', 'check', '--config', `${FIXTURES}/valid.yaml`])
  const shipped = portcullis(t, ['config', 'check', '--config', 'config/portcullis.yaml'], {
    JWT_VERIFICATION_KEY: fixtures.rsaPublicPem(),
    // Empty: unset, the shipped default (auto) applies.
    PORTCULLIS_AGENTOS_VERSION: '',
  })
  const [validExit, shippedExit] = await Promise.all([valid.exit(), shipped.exit()])

  t.same(validExit, { code: 0, signal: null })
  t.same(valid.stdout, [
    `${FIXTURES}/valid.yaml: valid (auth mode security_key, JWT authorization off, upstream http://127.0.0.1:7777, AgentOS ${SUITE_AGENTOS_LINE} (pinned))`,
  ])
  t.same(valid.stderr, [])

  t.equal(shippedExit.code, 0, 'the shipped default file is valid')
  t.same(
    shipped.stdout,
    [
      'config/portcullis.yaml: valid (auth mode jwt, JWT authorization off, upstream http://127.0.0.1:7777, AgentOS auto: read from the upstream at start)',
      `  database.data_dir: ${join(PROJECT_ROOT, 'data/portcullis')}`,
    ],
    'with the environment applied (JWT_VERIFICATION_KEY) and the resolved paths',
  )
  t.same(shipped.stderr, [], 'no warning')
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
    '  - upstream.url: must be an http:// or https:// URL such as http://127.0.0.1:7777',
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
  t.same(
    badEnv.stderr,
    [
      `invalid configuration in ${FIXTURES}/same-port.yaml and the environment: PORTCULLIS_UPSTREAM_URL="not a url" (environment variable for upstream.url): must be an http:// or https:// URL such as http://127.0.0.1:7777`,
    ],
    'one problem, one line: the variable by its name and the key it fills; the file not blamed alone',
  )
})

void t.test('serve: a bad config exits 2 before anything listens', async (t) => {
  const port = await closedPort()
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
  t.same(rules.stderr, [
    `invalid configuration in ${FIXTURES}/no-credential-source.yaml: ${NO_CREDENTIAL_SOURCE}`,
  ])
  t.notMatch(rules.stdout.join('\n'), /portcullis listening/)
})

void t.test('serve: a config node:http would refuse is caught as a config error', async (t) => {
  // headers_timeout_ms above request_timeout_ms passes the schema, then createServer throws.
  const child = portcullis(t, ['serve', '--config', `${FIXTURES}/timeouts-inverted.yaml`])
  const exit = await child.exit()
  t.equal(exit.code, 2, `exit 2 with the config errors (got ${exit.code})`)
  t.notMatch(child.stderr.join('\n'), /\n\s+at /, 'no stack trace')
})

void t.test('config check: warnings, --strict, an empty file, resolved paths', async (t) => {
  const open = tempConfig(t, 'auth: {open: true}\ndatabase: {data_dir: ./state}\n')
  const empty = tempConfig(t, '# only a comment\n')
  const secured = tempConfig(
    t,
    'auth: {security_key: a-test-key-8f2c6a0e4b9d3f7a1c5e9b}\nservice_accounts: {enabled: false}\n',
  )
  const runs = [
    portcullis(t, ['config', 'check', '--config', open]),
    portcullis(t, ['config', 'check', '--strict', '--config', open]),
    // An empty file has no credential source: the key comes from the environment.
    portcullis(t, ['config', 'check', '--strict', '--config', empty], {
      OS_SECURITY_KEY: 'k-0123456789abcdef0123456789abcdef',
    }),
    portcullis(t, ['config', 'check', '--strict', '--config', secured]),
  ]
  const [lenient, strict, emptyStrict, securedStrict] = await Promise.all(
    runs.map((child) => child.exit()),
  )
  const runsOpen = `warning: ${RUNS_OPEN}`

  t.equal(lenient?.code, 0, 'a warning alone passes')
  t.same(runs[0]?.stdout, [
    `${open}: valid (auth mode open, JWT authorization off, upstream http://127.0.0.1:7777, AgentOS ${SUITE_AGENTOS_LINE} (pinned))`,
    `  database.data_dir: ${join(dirname(open), 'state')}`,
  ])
  t.same(runs[0]?.stderr, [runsOpen], 'the gateway would run open: said so')

  t.equal(strict?.code, 2, '--strict makes a warning fatal')
  t.same(runs[1]?.stderr, [runsOpen, `${open}: 1 warning(s), refused because of --strict`])

  t.equal(emptyStrict?.code, 2)
  t.equal(runs[2]?.stderr[0], 'warning: the file is empty: every setting has its default value')

  t.equal(securedStrict?.code, 0, 'no warning, no failure')
  t.same(runs[3]?.stderr, [])
})

void t.test('config check: an unknown key names the closest known one', async (t) => {
  const file = tempConfig(
    t,
    'server: {prot: 1}\nauth: {security_key: k-0123456789abcdef0123456789abcdef, jwks_fle: x}\n',
  )
  const child = portcullis(t, ['config', 'check', '--config', file])
  t.equal((await child.exit()).code, 2)
  t.same(child.stderr.slice(1), [
    '  - server.prot: unknown key (did you mean server.port?)',
    '  - auth.jwks_fle: unknown key (did you mean auth.jwks_file?)',
  ])
})

void t.test('serve: the open-mode warning is logged at start-up too', async (t) => {
  const port = await closedPort()
  const file = tempConfig(
    t,
    `server: {host: 127.0.0.1, port: ${port}, admin_host: 127.0.0.1, admin_port: 0}\n` +
      'auth: {open: true}\n' +
      `database: {data_dir: ${JSON.stringify(await freshEmbeddedDataDir(t))}}\n`,
  )
  const child = portcullis(t, ['serve', '--config', file])
  await child.line((text) => text.includes('portcullis listening'), 'the gateway to listen')
  const warnings = child.stdout
    .map((text) => JSON.parse(text) as { level: number; msg: string })
    .filter((record) => record.level === 40)
    .map((record) => record.msg)
  t.same(warnings, [RUNS_OPEN])
  child.process.kill('SIGTERM')
  t.equal((await child.exit()).code, 0)
})
