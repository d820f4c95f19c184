/**
 * Every claim-type case decided as PyJWT 2.x decides it inside AgentOS
 * (docs/agentos-compatibility.md JWT-1 to JWT-6). Each row: a claim value, then AgentOS's answer.
 */
import { createHmac } from 'node:crypto'
import t from 'tap'
import { base64url, signRawHs } from '../../../helpers/jwt.js'
import { gatewayErrorOf } from '../helpers.js'
import { createVerifier, J, K } from './setup.js'

const token = (payload: Record<string, unknown> | string) =>
  signRawHs('{"alg":"HS256"}', typeof payload === 'string' ? payload : JSON.stringify(payload), K)

const TYPE_ERROR = (type: string) =>
  `Error decoding token: int() argument must be a string, a bytes-like object or a real number, not '${type}'`

void t.test('JWT-1 sub must be a string when present', async (t) => {
  const { principal } = await createVerifier(t, J)
  for (const sub of [123, 1.5, null, true, false, { id: 'alice' }, ['alice'], []]) {
    const error = await gatewayErrorOf(() => principal(token({ sub, scopes: [] })))
    t.same(
      [error.status, error.detail],
      [401, 'Invalid token: Subject must be a string'],
      JSON.stringify(sub),
    )
  }
  t.equal((await principal(token({ sub: '' }))).userId, '', 'an empty string is a string')
  t.equal((await principal(token({ scopes: [] }))).userId, null, 'absent: no user')
})

void t.test('JWT-2 jti must be a string when present', async (t) => {
  const { principal } = await createVerifier(t, J)
  for (const jti of [7, null, true, {}, ['x']]) {
    const error = await gatewayErrorOf(() => principal(token({ sub: 'a', jti })))
    t.equal(error.detail, 'Invalid token: JWT ID must be a string', JSON.stringify(jti))
  }
  t.ok((await principal(token({ sub: 'a', jti: 'abc' }))).authenticated)
})

void t.test('JWT-3 exp, nbf, iat are read with int(): strings, bools, floats', async (t) => {
  const { principal, clock } = await createVerifier(t, J)
  const now = clock.seconds
  const accepted: [string, unknown][] = [
    ['exp', String(now + 3600)],
    ['exp', ` ${now + 3600} `],
    ['exp', `+${now + 3600}`],
    ['exp', (now + 3600).toLocaleString('en-US').replaceAll(',', '_')],
    ['exp', now + 3600.9],
    ['nbf', String(now - 60)],
    ['nbf', true],
    ['nbf', false],
    ['iat', String(now)],
    ['iat', now - 0.5],
    ['iat', false],
  ]
  for (const [name, value] of accepted) {
    const got = await principal(token({ sub: 'a', [name]: value }))
    t.ok(got.authenticated, `${name}: ${JSON.stringify(value)} accepted`)
  }
  const exp = await principal(token({ sub: 'a', exp: String(now + 3600) }))
  t.equal(exp.expiresAt, now + 3600, 'a numeric-string exp still bounds the credential')
})

void t.test('JWT-4 what int() cannot read is refused with PyJWT or Python texts', async (t) => {
  const { principal, clock } = await createVerifier(t, J)
  const now = clock.seconds
  const refused: [string, unknown, string][] = [
    ['exp', true, 'Token has expired'],
    ['exp', false, 'Token has expired'],
    ['exp', String(now - 3600), 'Token has expired'],
    ['exp', 'soon', 'Invalid token: Expiration Time claim (exp) must be an integer.'],
    ['exp', '1.5e9', 'Invalid token: Expiration Time claim (exp) must be an integer.'],
    ['exp', '', 'Invalid token: Expiration Time claim (exp) must be an integer.'],
    ['exp', '1__0', 'Invalid token: Expiration Time claim (exp) must be an integer.'],
    ['exp', null, TYPE_ERROR('NoneType')],
    ['exp', [now + 60], TYPE_ERROR('list')],
    ['exp', {}, TYPE_ERROR('dict')],
    ['nbf', String(now + 3600), 'Invalid token: The token is not yet valid (nbf)'],
    ['nbf', 'later', 'Invalid token: Not Before claim (nbf) must be an integer.'],
    ['nbf', null, TYPE_ERROR('NoneType')],
    ['iat', String(now + 3600), 'Invalid token: The token is not yet valid (iat)'],
    ['iat', 'x', 'Invalid token: Issued At claim (iat) must be an integer.'],
    ['iat', [], TYPE_ERROR('list')],
  ]
  for (const [name, value, detail] of refused) {
    const error = await gatewayErrorOf(() => principal(token({ sub: 'a', [name]: value })))
    t.same([error.status, error.detail], [401, detail], `${name}: ${JSON.stringify(value)}`)
  }
  const huge = await gatewayErrorOf(() => principal(token('{"sub":"a","exp":1e400}')))
  t.equal(huge.detail, 'Error decoding token: cannot convert float infinity to integer')
})

void t.test('JWT-5 order: iat, nbf, exp, then sub, then jti', async (t) => {
  const { principal, clock } = await createVerifier(t, J)
  const late = clock.seconds + 3600
  const error = await gatewayErrorOf(() =>
    principal(token({ sub: 7, jti: 7, iat: late, nbf: late, exp: 1 })),
  )
  t.equal(error.detail, 'Invalid token: The token is not yet valid (iat)')
  const second = await gatewayErrorOf(() => principal(token({ sub: 7, jti: 7, exp: 1 })))
  t.equal(second.detail, 'Token has expired')
  const third = await gatewayErrorOf(() => principal(token({ sub: 7, jti: 7 })))
  t.equal(third.detail, 'Invalid token: Subject must be a string')
})

void t.test('JWT-6 segments that carry their correct = padding are accepted', async (t) => {
  const { principal } = await createVerifier(t, J)
  const pad = (segment: string) => segment + '='.repeat((4 - (segment.length % 4)) % 4)
  // Header and payload of lengths ≡ 2 and 3 (mod 4), so both need padding.
  const header = pad(base64url('{"alg":"HS256","t":12}'))
  const payload = pad(base64url('{"sub":"padded"}'))
  t.ok(header.endsWith('=') && payload.endsWith('='), 'both are padded')
  const input = `${header}.${payload}`
  const signature = pad(createHmac('sha256', K).update(input).digest('base64url'))
  t.equal((await principal(`${input}.${signature}`)).userId, 'padded')
  for (const [bad, detail] of [
    [`${header}=.${payload}.${signature}`, 'Invalid token: Invalid header padding'],
    [`${header}.${payload}==.${signature}`, 'Invalid token: Invalid payload padding'],
    [`${header}.${payload}.=${signature}`, 'Invalid token: Invalid crypto padding'],
  ] as const) {
    t.equal((await gatewayErrorOf(() => principal(bad))).detail, detail)
  }
})

void t.test(
  'a custom user id claim: a number is its text, an object or list is refused',
  async (t) => {
    const { principal } = await createVerifier(t, { ...J, user_id_claim: 'uid' })
    t.equal((await principal(token({ sub: 'a', uid: 42 }))).userId, '42')
    t.equal((await principal(token({ sub: 'a', uid: null }))).userId, null)
    for (const uid of [{ id: 'x' }, [], true]) {
      const error = await gatewayErrorOf(() => principal(token({ sub: 'a', uid })))
      t.equal(
        error.detail,
        'Invalid token: User id claim (uid) must be a string',
        JSON.stringify(uid),
      )
    }
  },
)
