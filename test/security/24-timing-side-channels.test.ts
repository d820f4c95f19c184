/**
 * Attack class 24 — timing side channels on key comparison (claude-code-router PR #1626,
 * statping#324). Every comparison of a secret goes through auth/constant-time.ts (SHA-256 of both
 * sides, then `crypto.timingSafeEqual`): `safeEqual`, or a `SecretMatcher` for a configured secret,
 * whose digest is made once (the security key and the scheduler token). Service-account tokens
 * are never compared at all: their SHA-256 is a lookup key, so the time of a lookup depends on a
 * digest of the guess, which says nothing about any token. A lint rule makes sure no `===` or
 * `.equals()` compares anything named like a secret, except reviewed, reasoned exceptions.
 */
import { agentosCatalogue } from '../../src/policy/catalogue/index.js'
import { readFileSync } from 'node:fs'
import fc from 'fast-check'
import t from 'tap'
import { safeEqual, SecretMatcher } from '../../src/auth/constant-time.js'
import { SchedulerTokenVerifier } from '../../src/auth/scheduler-token-verifier.js'
import { SecurityKeyVerifier } from '../../src/auth/security-key-verifier.js'
import { NOT_RESPONSIBLE } from '../../src/auth/verifier.js'
import { GatewayError } from '../../src/errors.js'
import { lintAs } from '../helpers/lint.js'
import { projectUrl } from '../helpers/project-root.js'

const SRC = projectUrl('src/')

// `npm run lint` refuses a secret compared with ===, !==, ==, != or .equals() anywhere in src/
// (no-restricted-syntax in eslint.config.js); the reviewed exceptions carry an
// `eslint-disable-next-line … -- <why>` on their line, and a stale one fails lint. This proves
// what the rule catches and what it lets pass.
void t.test('no secret is compared with === or .equals() in src/: the lint rule', async (t) => {
  const compares = [
    'if (credential.token === this.#key) return SECURITY_KEY_PRINCIPAL',
    'if (token !== expected) fail()',
    'const same = record.tokenHash == hash',
    'if (this.#secret != given) fail()',
    'if (a.password === b.password) ok()',
    'const same = given.equals(secret)',
    'const same = signature.equals(expected)',
    'if (digest(a) === b) ok()',
    // One for each name the rule knows, with nothing else secret-looking beside it.
    'if (secret === presented) ok()',
    'if (securityKey === presented) ok()',
    'if (config.security_key !== presented) fail()',
    'if (token === presented) ok()',
    'if (stored.tokenHash === presented) ok()',
    'if (hash === presented) ok()',
    'if (checksum !== presented) fail()',
    'if (credential === presented) ok()',
    'if (presented === this.#key) ok()',
  ]
  for (const file of [
    'src/auth/security-key-verifier.ts',
    'src/http/upgrade.ts',
    'src/gateway.ts',
  ]) {
    for (const code of compares)
      t.match(await lintAs(file, code), [/safeEqual/], `${file}: ${code}`)
  }
  const harmless = [
    "if (token.length === 0) return 'empty'",
    "if (typeof token === 'string') use(token)",
    "if (credential.source === 'cookie') use(credential)",
    'if (hash === undefined) return',
    'if (tokenHash === null) return',
    'if (verified === NOT_RESPONSIBLE) return',
    'if (this.#byHash.get(hash) === clients) remove()',
  ]
  for (const code of harmless) t.same(await lintAs('src/auth/pipeline.ts', code), [], code)
  t.match(
    await lintAs('src/auth/pipeline.ts', "import { timingSafeEqual } from 'node:crypto'"),
    [/Constant-time comparisons live in auth\/constant-time.ts/],
    'timingSafeEqual has one home: auth/constant-time.ts',
  )
})

void t.test(
  'the security key and the scheduler token are compared by a SecretMatcher',
  async (t) => {
    for (const file of ['auth/security-key-verifier.ts', 'auth/scheduler-token-verifier.ts']) {
      const source = readFileSync(new URL(file, SRC), 'utf8')
      t.match(source, /new SecretMatcher\(/, `${file}: its secret is held as a matcher`)
      t.match(source, /this\.#(key|token)\.matches\(credential\.token\)/, `${file}: compared by it`)
    }
    const constantTime = readFileSync(new URL('auth/constant-time.ts', SRC), 'utf8')
    t.match(
      constantTime,
      /timingSafeEqual\(digestOf\(a\), digestOf\(b\)\)/,
      'safeEqual: both digests compared with timingSafeEqual',
    )
    t.match(
      constantTime,
      /equalDigests\(digestOf\(presented\), this\.#digest\)/,
      'a matcher: the digest of what was presented against the secret digest',
    )
  },
)

void t.test(
  'safeEqual and a matcher are exact equality for any strings and never throw',
  async (t) => {
    const seeded = { seed: 24, numRuns: 2_000 }
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary' }),
        fc.string({ unit: 'binary' }),
        (a, b) => safeEqual(a, b) === (a === b),
      ),
      seeded,
    )
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary', minLength: 1 }),
        (a) => safeEqual(a, a) && !safeEqual(a, `${a}x`) && !safeEqual(a, a.slice(1)),
      ),
      seeded,
    )
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary' }),
        fc.string({ unit: 'binary' }),
        (secret, presented) =>
          new SecretMatcher(secret).matches(presented) === (secret === presented) &&
          new SecretMatcher(secret).matches(secret),
      ),
      seeded,
    )
    t.pass('2 000 random pairs, prefixes and extensions, for safeEqual and a matcher')
  },
)

void t.test(
  'the verifiers refuse prefixes, extensions and near misses of their secret',
  async (t) => {
    const key = new SecurityKeyVerifier({ security_key: 'root-key-0123' })
    for (const guess of ['root-key-012', 'root-key-01234', 'root-key-0124', 'ROOT-KEY-0123', '']) {
      const refusal = key.verify({ token: guess, source: 'header' })
      t.ok(refusal instanceof GatewayError && refusal.status === 401, guess)
    }
    t.match(key.verify({ token: 'root-key-0123', source: 'header' }), { kind: 'security_key' })
    const scheduler = new SchedulerTokenVerifier(
      {
        internal_service_token: 'itok-0123',
        verification_keys: null,
        jwks_file: null,
        jwks_url: null,
        oidc_issuer: null,
        validate: true,
        authorization: null,
        scope_mappings: null,
        security_key: null,
      },
      agentosCatalogue('2.9').schedulerScopes,
    )
    for (const guess of ['itok-012', 'itok-01234', 'itok-0124', '']) {
      t.equal(scheduler.verify({ token: guess, source: 'header' }), NOT_RESPONSIBLE, guess)
    }
  },
)
