import t from 'tap'
import { stringify } from 'yaml'
import { ConfigError, parseConfig } from '../../../src/config/load.js'
import { summarizeAuthMode } from '../../../src/config/auth-mode.js'

const CA = '/etc/portcullis/ca.pem'

/** Parses `auth` (with an upstream) and returns the problems, [] when it loads. */
function issues(auth: Record<string, unknown>, files: Record<string, string> = {}): string[] {
  try {
    parseConfig(stringify({ upstream: { url: 'http://127.0.0.1:7777' }, auth }), 'inline', {
      env: {},
      readFile: (path) => {
        const text = files[path]
        if (text === undefined) throw Object.assign(new Error('missing'), { code: 'ENOENT' })
        return text
      },
    })
    return []
  } catch (error) {
    if (error instanceof ConfigError) return [...error.issues]
    throw error
  }
}

void t.test('jwks_url and oidc_issuer are JWT sources with sane defaults', async (t) => {
  t.same(issues({ jwks_url: 'https://idp.example/.well-known/jwks.json' }), [])
  t.same(issues({ oidc_issuer: 'https://idp.example/realms/agents', authorization: true }), [])
  const parsed = parseConfig(
    stringify({
      upstream: { url: 'http://127.0.0.1:7777' },
      auth: { oidc_issuer: 'https://a.example/' },
    }),
    'inline',
    { env: {}, readFile: () => '' },
  )
  t.equal(summarizeAuthMode(parsed.auth).mode, 'jwt')
  t.match(parsed.auth, {
    jwks_refresh_min_seconds: 60,
    jwks_refresh_max_seconds: 3_600,
    jwks_max_stale_seconds: 86_400,
    jwks_removed_key_grace_seconds: 600,
    jwks_fetch_timeout_ms: 5_000,
    jwks_max_bytes: 262_144,
    jwks_max_keys: 100,
    jwks_allow_http: false,
    jwks_allow_private_addresses: false,
  })
})

void t.test('the URL rules', async (t) => {
  const cases: [Record<string, unknown>, string][] = [
    [{ jwks_url: 'idp.example/jwks' }, 'auth.jwks_url: must be an absolute URL'],
    [
      { jwks_url: 'ftp://idp.example/jwks' },
      'auth.jwks_url: must be an https:// URL without a fragment',
    ],
    [
      { jwks_url: 'https://idp.example/jwks#x' },
      'auth.jwks_url: must be an https:// URL without a fragment',
    ],
    [{ jwks_url: 'https://user:pw@idp.example/jwks' }, 'auth.jwks_url: must not carry credentials'],
    [
      { jwks_url: 'http://idp.example/jwks' },
      'auth.jwks_url: plain http is allowed only for a loopback host; use https (or set auth.jwks_allow_http: true for a provider on a trusted network)',
    ],
    [
      { oidc_issuer: 'http://keycloak.auth.svc:8080/realms/a' },
      'auth.oidc_issuer: plain http is allowed only for a loopback host; use https (or set auth.jwks_allow_http: true for a provider on a trusted network)',
    ],
    [
      { jwks_url: 'https://idp.example/jwks', oidc_issuer: 'https://idp.example' },
      "auth.oidc_issuer: give auth.jwks_url or auth.oidc_issuer, not both (the issuer's discovery document names its JWKS)",
    ],
    [
      { oidc_issuer: 'https://idp.example/?tenant=1' },
      'auth.oidc_issuer: an issuer URL has no query string (OpenID Connect Discovery)',
    ],
    [
      {
        jwks_url: 'https://idp.example/jwks',
        jwks_refresh_min_seconds: 600,
        jwks_refresh_max_seconds: 60,
      },
      'auth.jwks_refresh_min_seconds: must not exceed auth.jwks_refresh_max_seconds',
    ],
    [
      { jwks_url: 'https://idp.example/jwks', jwks_ca_file: '/nowhere/ca.pem' },
      'auth.jwks_ca_file: cannot read /nowhere/ca.pem (ENOENT)',
    ],
    [
      { jwks_url: 'https://idp.example/jwks', jwks_ca_file: CA },
      `auth.jwks_ca_file: ${CA} holds no PEM certificate`,
    ],
  ]
  for (const [auth, expected] of cases) {
    t.same(issues(auth, { [CA]: 'not a certificate' }), [expected], JSON.stringify(auth))
  }
  t.same(issues({ jwks_url: 'http://127.0.0.1:8443/jwks' }), [], 'http on loopback')
  t.same(issues({ jwks_url: 'http://localhost/jwks' }), [], 'http on localhost')
  t.same(
    issues({ oidc_issuer: 'http://keycloak.auth.svc:8080/realms/a', jwks_allow_http: true }),
    [],
    'http with the explicit opt-in',
  )
})
