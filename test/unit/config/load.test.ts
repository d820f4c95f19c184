import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { isAbsolute, join } from 'node:path'
import t from 'tap'
import { NO_CREDENTIAL_SOURCE } from '../../../src/config/auth-mode.js'
import { ConfigError, inspectConfig, loadConfig, parseConfig } from '../../../src/config/load.js'
import type { Config } from '../../../src/config/schema.js'
import { STRONG_SECURITY_KEY } from '../../helpers/secrets.js'
import { PROJECT_ROOT as ROOT } from '../../helpers/project-root.js'

const FIXTURES = join(ROOT, 'test/fixtures/configs')

/** Relative paths (in fixtures) are relative to the project root, whatever the working directory. */
const readFile = (path: string): string =>
  readFileSync(isAbsolute(path) ? path : join(ROOT, path), 'utf8')

function load(file: string, env: Record<string, string> = {}): Config {
  return loadConfig(join(FIXTURES, file), { env, readFile })
}

function parse(yaml: string, env: Record<string, string> = {}): Config {
  return parseConfig(yaml, 'inline', { env, readFile })
}

/** The issues of a config that must fail; none when it loads (which the expectation then fails). */
function issuesOf(run: () => unknown): readonly string[] {
  try {
    run()
  } catch (error) {
    if (error instanceof ConfigError) return error.issues
    throw error
  }
  return []
}

const ALGORITHMS =
  '"HS256"|"HS384"|"HS512"|"RS256"|"RS384"|"RS512"|"PS256"|"PS384"|"PS512"|"ES256"|"ES384"|"ES512"|"EdDSA"'
const NOT_HTTP = 'must be an http:// or https:// URL such as http://127.0.0.1:7777'
const CIDR = 'must be an IP address or CIDR block (10.0.0.0/8, ::1/128)'
const NEEDS_JWT =
  'JWT authorization requires a JWT verification source (auth.verification_keys, auth.jwks_file, auth.jwks_url, auth.oidc_issuer, JWT_VERIFICATION_KEY, JWT_JWKS_FILE or auth.validate: false); a service-account store or security key alone is not enough'

/** Each bad file and every message it must produce, in order, each naming its key path. */
const badFiles: [file: string, issues: string[]][] = [
  ['unknown-root-key.yaml', ['upstreem: unknown key (did you mean upstream?)']],
  [
    'unknown-nested-key.yaml',
    [
      'server.prot: unknown key (did you mean server.port?)',
      'auth.security_key.fallback: unknown key',
    ],
  ],
  [
    'wrong-types.yaml',
    [
      'server.port: Invalid input: expected number, received string',
      'server.trusted_proxies: Invalid input: expected array, received string',
      'upstream.preserve_host: Invalid input: expected boolean, received string',
      'logging.access_log: Invalid input: expected boolean, received number',
    ],
  ],
  [
    'bad-enum.yaml',
    [
      `auth.algorithm: Invalid option: expected one of ${ALGORITHMS}`,
      'auth.token_source: Invalid option: expected one of "header"|"cookie"|"both"|"HEADER"|"COOKIE"|"BOTH"',
      'logging.level: Invalid option: expected one of "fatal"|"error"|"warn"|"info"|"debug"|"trace"|"silent"',
    ],
  ],
  [
    'bad-cidr.yaml',
    [
      `server.trusted_proxies[1]: ${CIDR}`,
      `server.trusted_proxies[2]: ${CIDR}`,
      `server.trusted_proxies[3]: ${CIDR}`,
    ],
  ],
  ['bad-url.yaml', [`upstream.url: ${NOT_HTTP}`]],
  ['bad-url-not-a-url.yaml', [`upstream.url: ${NOT_HTTP}`]],
  ['non-mapping-root.yaml', ['the file must contain a mapping of sections (server:, auth:, …)']],
  ['scalar-root.yaml', ['the file must contain a mapping of sections (server:, auth:, …)']],
  ['authorization-without-jwt.yaml', [`auth.authorization: ${NEEDS_JWT}`]],
  ['scope-mappings-without-jwt.yaml', [`auth.scope_mappings: ${NEEDS_JWT}`]],
  ['no-credential-source.yaml', [NO_CREDENTIAL_SOURCE]],
  [
    'open-without-store.yaml',
    [
      'auth: at least one credential source is required: JWT keys or a JWKS file, the service-account store (service_accounts.enabled), or a security key',
    ],
  ],
  [
    'weak-secrets.yaml',
    [
      'auth.security_key: too short (9 characters); a shared secret needs at least 32 random characters, make one with: openssl rand -base64 32',
      'auth.internal_service_token: too short (9 characters); a shared secret needs at least 32 random characters, make one with: openssl rand -base64 32',
    ],
  ],
  [
    'verify-audience-without-audience.yaml',
    [
      'auth.verify_audience: needs auth.audience or auth.service_id to compare the token audience with',
    ],
  ],
  [
    'missing-jwks-file.yaml',
    ['auth.jwks_file: JWKS file not found: /nonexistent/portcullis-test/jwks.json'],
  ],
  [
    'secret-env-unset.yaml',
    ['auth.security_key: environment variable PORTCULLIS_TEST_UNSET_VARIABLE is not set'],
  ],
  [
    'secret-file-missing.yaml',
    ['auth.security_key: cannot read file /nonexistent/portcullis-test/security-key (ENOENT)'],
  ],
  [
    'secret-file-empty.yaml',
    [`auth.security_key: file ${join(FIXTURES, 'empty-secret.txt')} is empty`],
  ],
  [
    'secret-ref-malformed.yaml',
    ['auth.security_key: must be a string, {from_env: NAME} or {from_file: PATH}'],
  ],
  [
    'upstream-url-with-path.yaml',
    ['upstream.url: must not have a path; the gateway forwards the canonical request path as is'],
  ],
  ['same-port.yaml', ['server.admin_port: must differ from server.port']],
  [
    'many-schema-problems.yaml',
    [
      'server.port: Too big: expected number to be <=65535',
      `server.trusted_proxies[0]: ${CIDR}`,
      'server.unknown_server_key: unknown key',
      `upstream.url: ${NOT_HTTP}`,
      `auth.algorithm: Invalid option: expected one of ${ALGORITHMS}`,
      'logging.level: Invalid option: expected one of "fatal"|"error"|"warn"|"info"|"debug"|"trace"|"silent"',
      'extra_section: unknown key',
    ],
  ],
  [
    'many-rule-problems.yaml',
    [
      'auth.internal_service_token: environment variable PORTCULLIS_TEST_UNSET_VARIABLE is not set',
      'auth.verify_audience: needs auth.audience or auth.service_id to compare the token audience with',
      'auth.jwks_file: JWKS file not found: /nonexistent/portcullis-test/jwks.json',
      'upstream.url: must not have a path; the gateway forwards the canonical request path as is',
      'server.admin_port: must differ from server.port',
    ],
  ],
]

void t.test(
  'each bad file is refused with exactly its messages, each with its key path',
  async (t) => {
    for (const [file, expected] of badFiles) {
      t.same(
        issuesOf(() => load(file)),
        expected,
        file,
      )
    }
  },
)

void t.test('the error message lists every issue with the file name', async (t) => {
  const error = (() => {
    try {
      load('many-schema-problems.yaml')
    } catch (thrown) {
      return thrown as ConfigError
    }
    return undefined
  })()
  t.ok(error instanceof ConfigError)
  t.match(error?.message, /^invalid configuration in .*many-schema-problems\.yaml:\n/)
  t.equal(error?.message.split('\n  - ').length, 8, 'seven issues, one line each')
})

void t.test('YAML syntax errors and duplicate keys are refused, saying where', async (t) => {
  // Not named .yaml: `prettier --check .` (npm run lint) would fail on its syntax error.
  const syntax = issuesOf(() => load('yaml-syntax-error.txt'))
  t.equal(syntax.length, 1)
  t.match(syntax[0], /^YAML: /)
  t.match(syntax[0], /line 3/, 'the line of the problem')
  const duplicate = issuesOf(() => load('duplicate-key.yaml'))
  t.equal(duplicate.length, 1)
  t.match(duplicate[0], /^YAML: Map keys must be unique/)
  t.match(duplicate[0], /line 3|server\.port/, 'which key, or at least where')
})

void t.test('a missing file is reported, not thrown raw', async (t) => {
  t.same(
    issuesOf(() => loadConfig(join(FIXTURES, 'no-such-file.yaml'), { env: {} })),
    ['cannot read the config file (ENOENT)'],
  )
})

void t.test(
  'headers_timeout_ms above request_timeout_ms is a config error, not a crash at start',
  async (t) => {
    // node:http throws ERR_OUT_OF_RANGE for such a server; the check belongs to config validation.
    const issues = issuesOf(() => load('timeouts-inverted.yaml'))
    t.match(issues, [/^server\.(headers|request)_timeout_ms: /])
    // A request timeout of 0 disables it, so any headers timeout is fine then.
    t.equal(
      parse('server: {headers_timeout_ms: 10000, request_timeout_ms: 0}\nauth: {open: true}').server
        .request_timeout_ms,
      0,
    )
  },
)

void t.test(
  'an empty file has every default, which is refused for want of a credential',
  async (t) => {
    t.same(
      issuesOf(() => parse('')),
      [NO_CREDENTIAL_SOURCE],
    )
    t.match(
      (() => {
        try {
          parse('')
        } catch (error) {
          return (error as Error).message
        }
        return ''
      })(),
      /^invalid configuration in inline: auth: no credential source/,
      'one problem, one line',
    )
    const config = parse('auth: {open: true}')
    t.equal(config.auth.open, true)
    t.equal(config.server.port, 8080)
    t.equal(config.server.admin_port, 9090)
    t.equal(config.upstream.url, 'http://127.0.0.1:7777')
    t.equal(config.auth.algorithm, 'RS256')
    t.same(config.server.trusted_proxies, [])
    t.equal(config.service_accounts.enabled, true)
  },
)

void t.test('the shipped config/portcullis.yaml loads, given a credential', async (t) => {
  const shipped = join(ROOT, 'config/portcullis.yaml')
  for (const env of [{}, { OS_SECURITY_KEY: '' }]) {
    t.same(
      issuesOf(() => loadConfig(shipped, { env })),
      [NO_CREDENTIAL_SOURCE],
      `refused with ${JSON.stringify(env)}: a Secret not mounted never opens the gateway`,
    )
  }
  t.same(
    issuesOf(() => loadConfig(shipped, { env: { OS_SECURITY_KEY: 'a' } })),
    [
      'OS_SECURITY_KEY (environment variable for auth.security_key): too short (1 characters); a shared secret needs at least 32 random characters, make one with: openssl rand -base64 32',
    ],
  )
  t.equal(
    loadConfig(shipped, { env: { PORTCULLIS_AUTH_OPEN: 'true' } }).auth.open,
    true,
    'open only when asked',
  )
  t.same(
    issuesOf(() => loadConfig(shipped, { env: { PORTCULLIS_AUTH_OPEN: 'yes' } })),
    ['PORTCULLIS_AUTH_OPEN="yes" (environment variable for auth.open): must be true or false'],
  )
  const config = loadConfig(shipped, { env: { OS_SECURITY_KEY: STRONG_SECURITY_KEY } })
  t.equal(config.server.port, 8080)
  t.equal(config.server.admin_port, 9090)
  t.equal(config.upstream.url, 'http://127.0.0.1:7777')
  t.equal(config.auth.admin_scope, 'os:admin')
  t.equal(
    config.database.data_dir,
    join(process.cwd(), 'data/portcullis'),
    'a default path resolves against the working directory',
  )
})

void t.test('environment bindings', async (t) => {
  await t.test('fill keys the file leaves unset; a value in the file wins', async (t) => {
    const env = {
      PORTCULLIS_UPSTREAM_URL: 'http://10.0.0.5:8000',
      PORTCULLIS_PORT: '8081',
      PORTCULLIS_ADMIN_PORT: '9091',
      OS_SECURITY_KEY: 'from-env-key-1f5a9d3c7e0b4a8f2c6e',
      JWT_JWKS_FILE: 'test/fixtures/keys/jwks.json',
      SERVICE_ACCOUNT_CACHE_TTL_SECONDS: '2.5',
      DATABASE_URL: 'postgres://db.example/portcullis',
    }
    const filled = parse('', env)
    t.equal(filled.upstream.url, 'http://10.0.0.5:8000')
    t.equal(filled.server.port, 8081, 'a number, not a string')
    t.equal(filled.server.admin_port, 9091)
    t.equal(filled.auth.security_key, 'from-env-key-1f5a9d3c7e0b4a8f2c6e')
    t.equal(
      filled.auth.jwks_file,
      join(process.cwd(), 'test/fixtures/keys/jwks.json'),
      'a relative path from a variable resolves against the working directory',
    )
    t.equal(filled.service_accounts.cache_ttl_seconds, 2.5)
    t.equal(filled.database.url, 'postgres://db.example/portcullis')

    const fileWins = parse(
      [
        'server: {port: 7000, admin_port: 7001}',
        'upstream: {url: "http://127.0.0.1:7777"}',
        'auth: {security_key: from-file-key-7e1b5f9a3d0c8e2a6f4b}',
        'service_accounts: {cache_ttl_seconds: 10}',
        'database: {url: "postgres://file.example/db"}',
      ].join('\n'),
      env,
    )
    t.equal(fileWins.server.port, 7000)
    t.equal(fileWins.server.admin_port, 7001)
    t.equal(fileWins.upstream.url, 'http://127.0.0.1:7777')
    t.equal(fileWins.auth.security_key, 'from-file-key-7e1b5f9a3d0c8e2a6f4b')
    t.equal(fileWins.service_accounts.cache_ttl_seconds, 10)
    t.equal(fileWins.database.url, 'postgres://file.example/db')

    t.equal(
      parse('auth: {open: true}', { PORTCULLIS_PORT: '' }).server.port,
      8080,
      'an empty variable is unset',
    )
  })

  await t.test('JWT_VERIFICATION_KEY is appended to the file list', async (t) => {
    const env = { JWT_VERIFICATION_KEY: 'env-secret' }
    t.same(parse('auth: {algorithm: HS256}', env).auth.verification_keys, ['env-secret'])
    t.same(
      parse('auth: {algorithm: HS256, verification_keys: [file-one, file-two]}', env).auth
        .verification_keys,
      ['file-one', 'file-two', 'env-secret'],
    )
    t.same(
      parse('auth: {algorithm: HS256, verification_keys: [env-secret]}', env).auth
        .verification_keys,
      ['env-secret'],
      'not twice',
    )
    t.equal(parse('auth: {algorithm: HS256}', env).auth.security_key, null)
  })

  await t.test('a bad variable is reported by its name, with the key it fills', async (t) => {
    for (const value of ['eighty', '80abc', '-1', '1e3', ' 8080']) {
      t.same(
        issuesOf(() => parse('', { PORTCULLIS_PORT: value })),
        [
          `PORTCULLIS_PORT=${JSON.stringify(value)} (environment variable for server.port): must be a non-negative number`,
        ],
        JSON.stringify(value),
      )
    }
    t.same(
      issuesOf(() => parse('', { PORTCULLIS_PORT: '70000' })),
      [
        'PORTCULLIS_PORT="70000" (environment variable for server.port): Too big: expected number to be <=65535',
      ],
    )
    t.same(
      issuesOf(() => parse('', { PORTCULLIS_ADMIN_PORT: '8080.5' })),
      [
        'PORTCULLIS_ADMIN_PORT="8080.5" (environment variable for server.admin_port): Invalid input: expected int, received number',
      ],
    )
    t.same(
      issuesOf(() => parse('', { SERVICE_ACCOUNT_CACHE_TTL_SECONDS: 'soon' })),
      [
        'SERVICE_ACCOUNT_CACHE_TTL_SECONDS="soon" (environment variable for service_accounts.cache_ttl_seconds): must be a non-negative number',
      ],
    )
    t.same(
      issuesOf(() => parse('', { PORTCULLIS_UPSTREAM_URL: 'ftp://x' })),
      [`PORTCULLIS_UPSTREAM_URL="ftp://x" (environment variable for upstream.url): ${NOT_HTTP}`],
    )
    t.same(
      issuesOf(() => parse('', { PORTCULLIS_UPSTREAM_URL: 'ftp://user:secret@x' })),
      [`PORTCULLIS_UPSTREAM_URL="ftp://x" (environment variable for upstream.url): ${NOT_HTTP}`],
      'credentials in a URL are not repeated',
    )
    let error: unknown
    try {
      parse('', { PORTCULLIS_PORT: 'abc', OS_SECURITY_KEY: STRONG_SECURITY_KEY })
    } catch (thrown) {
      error = thrown
    }
    t.match(
      (error as Error).message,
      /^invalid configuration in inline and the environment: PORTCULLIS_PORT=/,
      'the header does not blame the file alone',
    )
    t.same(
      issuesOf(() => parse('database: {url: 42}', { DATABASE_URL: 'postgres://u:pw@h/db' })),
      ['database.url: must be a string, {from_env: NAME} or {from_file: PATH}'],
      "a key the file set is the file's problem",
    )
  })

  await t.test(
    'a variable that conflicts with the rules is reported like the file would be',
    async (t) => {
      t.same(
        issuesOf(() =>
          parse('', {
            PORTCULLIS_UPSTREAM_URL: 'http://127.0.0.1:7777/api',
            OS_SECURITY_KEY: STRONG_SECURITY_KEY,
          }),
        ),
        [
          'PORTCULLIS_UPSTREAM_URL="http://127.0.0.1:7777/api" (environment variable for upstream.url): must not have a path; the gateway forwards the canonical request path as is',
        ],
      )
      t.same(
        issuesOf(() =>
          parse('', { PORTCULLIS_PORT: '9090', OS_SECURITY_KEY: STRONG_SECURITY_KEY }),
        ),
        ['server.admin_port: must differ from server.port'],
      )
    },
  )
})

void t.test('secret references are resolved once, at load', async (t) => {
  const config = load('secret-refs.yaml', {
    PORTCULLIS_TEST_JWT_SECRET: 'env-jwt-secret',
    PORTCULLIS_TEST_SCHEDULER_TOKEN: 'scheduler-token-6d0a4e8c2f7b1d5a9e3c',
    PORTCULLIS_TEST_DATABASE_URL: 'postgres://user:pw@db.example/portcullis',
  })
  t.same(
    config.auth.verification_keys,
    ['inline-secret-value', 'env-jwt-secret', 'secret-from-a-file'],
    'one trailing newline dropped',
  )
  t.equal(config.auth.internal_service_token, 'scheduler-token-6d0a4e8c2f7b1d5a9e3c')
  t.equal(config.database.url, 'postgres://user:pw@db.example/portcullis')

  const missing = issuesOf(() => load('secret-refs.yaml', {}))
  t.same(missing, [
    'auth.verification_keys[1]: environment variable PORTCULLIS_TEST_JWT_SECRET is not set',
    'auth.internal_service_token: environment variable PORTCULLIS_TEST_SCHEDULER_TOKEN is not set',
    'database.url: environment variable PORTCULLIS_TEST_DATABASE_URL is not set',
  ])
  t.notMatch(
    missing.join('\n'),
    /secret-from-a-file|inline-secret-value/,
    'no secret value in messages',
  )

  // A secret given through the environment binding, and by reference to a variable.
  t.equal(
    parse('auth: {security_key: {from_env: MY_KEY}}', { MY_KEY: STRONG_SECURITY_KEY }).auth
      .security_key,
    STRONG_SECURITY_KEY,
  )
})

void t.test('the loaded config is deeply frozen', async (t) => {
  const config = load('valid.yaml')
  const nodes: [string, unknown][] = [
    ['config', config],
    ['server', config.server],
    ['server.trusted_proxies', config.server.trusted_proxies],
    ['upstream', config.upstream],
    ['auth', config.auth],
    ['logging', config.logging],
    ['cors.allowed_origins', config.cors.allowed_origins],
  ]
  for (const [name, node] of nodes) t.ok(Object.isFrozen(node), `${name} is frozen`)
  t.throws(() => {
    ;(config.server as { port: number }).port = 1
  }, TypeError)
  t.throws(() => {
    ;(config.server.trusted_proxies as string[]).push('0.0.0.0/0')
  }, TypeError)
  t.same(config.server.trusted_proxies, ['10.0.0.0/8', '::1'])
  const withKeys = parse('auth: {algorithm: HS256, verification_keys: [a, {from_env: K}]}', {
    K: 'b',
  })
  t.ok(Object.isFrozen(withKeys.auth.verification_keys), 'resolved secret lists too')
})

void t.test('auth.jwks_ca_file resolves against the file’s directory too', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'portcullis-config-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  mkdirSync(join(dir, 'certs'))
  writeFileSync(
    join(dir, 'certs', 'ca.pem'),
    readFileSync(join(ROOT, 'test/fixtures/keys/rsa-cert.pem')),
  )
  writeFileSync(
    join(dir, 'portcullis.yaml'),
    [
      'auth:',
      '  algorithm: RS256',
      '  jwks_url: https://idp.example.com/.well-known/jwks.json',
      '  jwks_ca_file: certs/ca.pem',
    ].join('\n'),
  )
  const inspected = inspectConfig(join(dir, 'portcullis.yaml'), { env: {} })
  t.equal(inspected.config.auth.jwks_ca_file, join(dir, 'certs/ca.pem'))
  t.same(
    inspected.files.filter((file) => file.key === 'auth.jwks_ca_file'),
    [{ key: 'auth.jwks_ca_file', path: join(dir, 'certs/ca.pem') }],
  )
})

void t.test('relative paths in the file resolve against the file’s directory', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'portcullis-config-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  mkdirSync(join(dir, 'keys'))
  writeFileSync(
    join(dir, 'keys', 'jwks.json'),
    readFileSync(join(ROOT, 'test/fixtures/keys/jwks.json')),
  )
  writeFileSync(join(dir, 'keys', 'security-key'), 'key-from-a-file-3c7e1a5f9b2d6a0e4c\n')
  writeFileSync(
    join(dir, 'portcullis.yaml'),
    [
      'auth:',
      '  jwks_file: keys/jwks.json',
      '  security_key: {from_file: ./keys/security-key}',
      'database: {data_dir: ../state/db}',
    ].join('\n'),
  )
  const inspected = inspectConfig(join(dir, 'portcullis.yaml'), { env: {} })
  t.equal(inspected.config.auth.jwks_file, join(dir, 'keys/jwks.json'))
  t.equal(inspected.config.auth.security_key, 'key-from-a-file-3c7e1a5f9b2d6a0e4c')
  t.equal(inspected.config.database.data_dir, join(dir, '../state/db'))
  t.same(
    inspected.files,
    [
      { key: 'auth.jwks_file', path: join(dir, 'keys/jwks.json') },
      { key: 'database.data_dir', path: join(dir, '../state/db') },
      { key: 'auth.security_key', path: join(dir, 'keys/security-key') },
    ],
    'every file the configuration names, absolute',
  )
  const env = inspectConfig(join(dir, 'portcullis.yaml'), {
    env: { PORTCULLIS_DATA_DIR: 'elsewhere' },
  })
  t.equal(env.config.database.data_dir, join(dir, '../state/db'), 'the file still wins')
})

void t.test('unknown keys suggest the closest known key', async (t) => {
  t.same(
    issuesOf(() => parse('auth: {jwks_fle: x}\nlogging: {levle: debug}\ndatabse: {}')),
    [
      'auth.jwks_fle: unknown key (did you mean auth.jwks_file?)',
      'logging.levle: unknown key (did you mean logging.level?)',
      'databse: unknown key (did you mean database?)',
    ],
  )
  t.same(
    issuesOf(() => parse('server: {data_dir: x, zzzzzzzz: 1}')),
    [
      'server.data_dir: unknown key (did you mean database.data_dir?)',
      'server.zzzzzzzz: unknown key',
    ],
  )
})

void t.test('warnings: an empty file, a gateway that runs open, unchecked JWTs', async (t) => {
  const warningsOf = (yaml: string, env: Record<string, string> = {}): readonly string[] => {
    const dir = mkdtempSync(join(tmpdir(), 'portcullis-config-'))
    try {
      writeFileSync(join(dir, 'portcullis.yaml'), yaml)
      return inspectConfig(join(dir, 'portcullis.yaml'), { env }).warnings
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }
  const open =
    'auth.open: true: the gateway runs open (no JWT source, no security key); requests without a credential are forwarded to the upstream, only service-account tokens are checked'
  t.same(warningsOf('# nothing but a comment\n', { PORTCULLIS_AUTH_OPEN: 'true' }), [
    'the file is empty: every setting has its default value',
    open,
  ])
  t.same(warningsOf('auth: {security_key: k-0123456789abcdef0123456789abcdef}\n'), [])
  t.same(warningsOf('auth: {open: true}\nservice_accounts: {enabled: true}\n'), [open])
  t.same(warningsOf('auth: {open: true, security_key: k-0123456789abcdef0123456789abcdef}\n'), [
    'auth.open: true has no effect: a JWT source or a security key is configured, so every request needs a credential',
  ])
  t.same(warningsOf('auth: {validate: false}\n'), [
    'auth.validate: false: JWT signatures, expiry and audience are not checked; anyone can forge a token (development only)',
  ])
})

/** A credential source from the environment, for the tests of other settings. */
const KEYED = { OS_SECURITY_KEY: STRONG_SECURITY_KEY }

void t.test(
  'upstream.agentos_version: auto, a line, from the file or the environment',
  async (t) => {
    t.equal(parse('{}', KEYED).upstream.agentos_version, 'auto')
    t.equal(parse('upstream: {agentos_version: "3.0"}', KEYED).upstream.agentos_version, '3.0')
    t.equal(
      parse('{}', { ...KEYED, PORTCULLIS_AGENTOS_VERSION: '2.9' }).upstream.agentos_version,
      '2.9',
    )
    t.equal(
      parse('upstream: {agentos_version: auto}', { ...KEYED, PORTCULLIS_AGENTOS_VERSION: '2.9' })
        .upstream.agentos_version,
      'auto',
      'the file wins',
    )
    const lines =
      'must be auto or one of the AgentOS lines "2.9", "3.0" (quoted: YAML reads 3.0 as a number)'
    t.same(
      issuesOf(() => parse('upstream: {agentos_version: 3.0}', KEYED)),
      [`upstream.agentos_version: ${lines}`],
    )
    t.match(
      issuesOf(() => parse('{}', { ...KEYED, PORTCULLIS_AGENTOS_VERSION: '3.1' })),
      [/PORTCULLIS_AGENTOS_VERSION.*must be auto or one of the AgentOS lines/],
    )
  },
)

void t.test('auth.deny_unmapped_routes: unset unless given', async (t) => {
  t.equal(parse('{}', KEYED).auth.deny_unmapped_routes, null)
  t.equal(parse('auth: {deny_unmapped_routes: false}', KEYED).auth.deny_unmapped_routes, false)
  t.equal(parse('auth: {deny_unmapped_routes: true}', KEYED).auth.deny_unmapped_routes, true)
})

void t.test('audit.retention_days: 365 unless given, a whole number of days from 1', async (t) => {
  const withKey = (retention: string) =>
    `auth:\n  security_key: ${STRONG_SECURITY_KEY}\n${retention === '' ? '' : `audit:\n  retention_days: ${retention}\n`}`
  t.equal(parse(withKey('')).audit.retention_days, 365, 'the default')
  t.equal(parse(withKey('1')).audit.retention_days, 1)
  t.equal(parse(withKey('36500')).audit.retention_days, 36_500)
  for (const [value, issue] of [
    ['0', 'Too small: expected number to be >=1'],
    ['-30', 'Too small: expected number to be >=1'],
    ['1.5', 'Invalid input: expected int, received number'],
    ['36501', 'Too big: expected number to be <=36500'],
    ['"90d"', 'Invalid input: expected number, received string'],
    ['null', 'Invalid input: expected number, received null'],
  ] as const)
    t.same(
      issuesOf(() => parse(withKey(value))),
      [`audit.retention_days: ${issue}`],
      value,
    )
})

void t.test(
  'audit.prune_batch_size: 5000 unless given, a whole number from 1 to 100000',
  async (t) => {
    const withKey = (size: string) =>
      `auth:\n  security_key: ${STRONG_SECURITY_KEY}\n${size === '' ? '' : `audit:\n  prune_batch_size: ${size}\n`}`
    t.equal(parse(withKey('')).audit.prune_batch_size, 5_000, 'the default')
    t.equal(parse(withKey('1')).audit.prune_batch_size, 1)
    t.equal(parse(withKey('100000')).audit.prune_batch_size, 100_000)
    for (const [value, issue] of [
      ['0', 'Too small: expected number to be >=1'],
      ['2.5', 'Invalid input: expected int, received number'],
      ['100001', 'Too big: expected number to be <=100000'],
    ] as const)
      t.same(
        issuesOf(() => parse(withKey(value))),
        [`audit.prune_batch_size: ${issue}`],
        value,
      )
  },
)
