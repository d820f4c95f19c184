/**
 * Attack class 24 — timing side channels on key comparison (claude-code-router PR #1626,
 * statping#324). Every comparison of a secret goes through `safeEqual` (SHA-256 of both sides,
 * then `crypto.timingSafeEqual`): the security key and the scheduler token. Service-account tokens
 * are never compared at all: their SHA-256 is a lookup key, so the time of a lookup depends on a
 * digest of the guess, which says nothing about any token. A scan of src/ makes sure no `===` or
 * `.equals()` compares anything named like a secret, except the listed, reasoned exceptions.
 */
import { readdirSync, readFileSync } from 'node:fs'
import fc from 'fast-check'
import t from 'tap'
import { safeEqual } from '../../src/auth/constant-time.js'
import { SchedulerTokenVerifier } from '../../src/auth/scheduler-token-verifier.js'
import { SecurityKeyVerifier } from '../../src/auth/security-key-verifier.js'
import { NOT_RESPONSIBLE } from '../../src/auth/verifier.js'
import { GatewayError } from '../../src/errors.js'

const SRC = new URL('../../src/', import.meta.url)
const SECRET =
  /secret|security_?key|#key\b|#token\b|\btoken\b|tokenhash|\bhash\b|digest|password|signature|checksum|credential/i
const LITERAL = /^(['"`].*['"`]|-?\d+|null|undefined|true|false|NOT_RESPONSIBLE)$/
// Public properties of secret-named values: comparing them leaks nothing.
const PUBLIC_PART = /\.(length|kind|source|status|code|size|kid|alg|kty|crv)\)?$/

/** Reviewed comparisons that look like secret compares but are not: file → line fragment → why. */
const EXCEPTIONS: readonly [file: string, fragment: string, why: string][] = [
  [
    'auth/jwt/jwks-file.ts',
    'digest === this.#current.digest',
    'digests of two versions of a file the operator owns; no client input',
  ],
  [
    'auth/jwt/remote/remote-jwks.ts',
    'document.digest === digest',
    'digests of two public key sets the identity provider published; no client input',
  ],
  [
    'auth/jwt/remote/remote-jwks.ts',
    'this.#rejected?.digest === digest',
    'digests of two public key sets the identity provider published; no client input',
  ],
  [
    'config-reloader.ts',
    'digest === this.#digest',
    'digests of two versions of the config file; no client input',
  ],
  [
    'http/connection-watch.ts',
    'this.#byHash.get(hash) === clients',
    'the identity of a set of sockets, found by a token digest',
  ],
  [
    'service-accounts/token-format.ts',
    'checksumOf(body) === token.slice(CHECKSUM_START)',
    "a CRC of the caller's own input: public, for typos",
  ],
]

function sourceFiles(): string[] {
  return readdirSync(SRC, { recursive: true, encoding: 'utf8' }).filter((file) =>
    file.endsWith('.ts'),
  )
}

/** Comparisons of secret-named operands outside the reviewed exceptions, as `file:line: text`. */
function suspiciousComparisons(): string[] {
  const found: string[] = []
  const comparison = /([\w.#$?()[\]'"`]+)\s*(?:===|!==|==|!=)\s*([\w.#$?()[\]'"`-]+)/g
  const equalsCall = /([\w.#$?()[\]]+)\.equals\(([^)]*)\)/g
  for (const file of sourceFiles()) {
    const lines = readFileSync(new URL(file, SRC), 'utf8').split('\n')
    lines.forEach((line, index) => {
      if (/^\s*(\/\/|\*)/.test(line)) return
      for (const [, left = '', right = ''] of [
        ...line.matchAll(comparison),
        ...line.matchAll(equalsCall),
      ]) {
        const operands = [left, right].map((operand) =>
          operand.replace(/^[(!]+/, '').replace(/[),;\]]+$/, ''),
        )
        if (operands.some((operand) => LITERAL.test(operand) || operand.startsWith('typeof')))
          continue
        const secretive = operands.filter(
          (operand) => SECRET.test(operand) && !PUBLIC_PART.test(operand),
        )
        if (secretive.length === 0) continue
        const excused = EXCEPTIONS.some(
          ([where, fragment]) => file.endsWith(where) && line.includes(fragment),
        )
        if (!excused) found.push(`${file}:${index + 1}: ${line.trim()}`)
      }
    })
  }
  return found
}

void t.test('no secret is compared with === or .equals() in src/', async (t) => {
  t.same(suspiciousComparisons(), [], 'every secret compare goes through safeEqual')
  for (const [file, fragment] of EXCEPTIONS) {
    t.ok(
      readFileSync(new URL(file, SRC), 'utf8').includes(fragment),
      `exception still exists: ${file}`,
    )
  }
})

void t.test('the scan finds a secret compared with ===', async (t) => {
  const line = 'if (credential.token === this.#key) return SECURITY_KEY_PRINCIPAL'
  const comparison = /([\w.#$?()[\]'"`]+)\s*(?:===|!==|==|!=)\s*([\w.#$?()[\]'"`-]+)/g
  const [match] = line.matchAll(comparison)
  t.ok(
    match !== undefined && SECRET.test(match[1] ?? '') && !LITERAL.test(match[2] ?? ''),
    'flagged',
  )
})

void t.test('the security key and the scheduler token are compared with safeEqual', async (t) => {
  for (const file of ['auth/security-key-verifier.ts', 'auth/scheduler-token-verifier.ts']) {
    t.match(
      readFileSync(new URL(file, SRC), 'utf8'),
      /safeEqual\(credential\.token, this\.#(key|token)\)/,
      file,
    )
  }
  const constantTime = readFileSync(new URL('auth/constant-time.ts', SRC), 'utf8')
  t.match(constantTime, /timingSafeEqual\(left, right\)/, 'digests compared with timingSafeEqual')
  const users = sourceFiles().filter((file) =>
    readFileSync(new URL(file, SRC), 'utf8').includes('timingSafeEqual('),
  )
  t.same(users, ['auth/constant-time.ts'], 'one implementation')
})

void t.test('safeEqual is exact equality for any strings and never throws', async (t) => {
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
  t.pass('2 000 random pairs, prefixes and extensions')
})

void t.test(
  'the verifiers refuse prefixes, extensions and near misses of their secret',
  async (t) => {
    const key = new SecurityKeyVerifier({ security_key: 'root-key-0123' })
    for (const guess of ['root-key-012', 'root-key-01234', 'root-key-0124', 'ROOT-KEY-0123', '']) {
      const refusal = await key
        .verify({ token: guess, source: 'header' })
        .catch((error: unknown) => error)
      t.ok(refusal instanceof GatewayError && refusal.status === 401, guess)
    }
    t.equal((await key.verify({ token: 'root-key-0123', source: 'header' })).kind, 'security_key')
    const scheduler = new SchedulerTokenVerifier({
      internal_service_token: 'itok-0123',
      verification_keys: null,
      jwks_file: null,
      jwks_url: null,
      oidc_issuer: null,
      validate: true,
      authorization: null,
      scope_mappings: null,
      security_key: null,
    })
    for (const guess of ['itok-012', 'itok-01234', 'itok-0124', '']) {
      t.equal(await scheduler.verify({ token: guess, source: 'header' }), NOT_RESPONSIBLE, guess)
    }
  },
)
