import t from 'tap'
import { encodeIdHeaderValue, jsonHeaderValue } from '../../../src/identity/header-values.js'
import {
  ANONYMOUS,
  SECURITY_KEY,
  enforcer,
  jwtUser,
  planInput,
  refusal,
  serviceAccount,
} from './helpers.js'

const injected = (plan: {
  headers: { inject?: readonly (readonly [string, string])[] | undefined }
}) => Object.fromEntries(plan.headers.inject ?? [])

void t.test(
  'IDENT-1: identity headers per principal kind, sent with lowercase names',
  async (t) => {
    const gateway = enforcer()
    const cases = [
      {
        name: 'jwt with session and selected claims',
        principal: jwtUser('alice', ['agents:read', 'my scope'], {
          sessionId: 's-1',
          dependencies: { tenant: 'acme' },
          sessionState: { plan: 'pro' },
        }),
        expected: {
          'x-auth-user-id': 'alice',
          'x-auth-kind': 'jwt',
          'x-auth-scopes': '["agents:read","my scope"]',
          'x-auth-session-id': 's-1',
          'x-auth-dependencies': '{"tenant":"acme"}',
          'x-auth-session-state': '{"plan":"pro"}',
          'x-user-id': 'alice',
        },
      },
      {
        name: 'service account',
        principal: serviceAccount('bot'),
        expected: {
          'x-auth-user-id': 'sa:bot',
          'x-auth-kind': 'service_account',
          'x-auth-scopes': '["agents:run"]',
          'x-auth-service-account': 'bot',
          'x-user-id': 'sa:bot',
        },
      },
      {
        name: 'security key',
        principal: SECURITY_KEY,
        expected: { 'x-auth-kind': 'security_key' },
      },
      {
        name: 'jwt without sub',
        principal: jwtUser(null, []),
        expected: { 'x-auth-kind': 'jwt', 'x-auth-scopes': '[]' },
      },
      { name: 'anonymous', principal: ANONYMOUS, expected: {} },
    ]
    for (const { name, principal, expected } of cases) {
      const plan = await gateway.plan(planInput({ principal, path: '/health' }))
      t.same(injected(plan), expected, name)
    }
  },
)

void t.test(
  'IDENT-1: header values are visible ASCII, percent-encoded or \\u-escaped',
  async (t) => {
    t.equal(encodeIdHeaderValue('alice@example.com'), 'alice@example.com')
    t.equal(encodeIdHeaderValue('José Ñ'), 'Jos%C3%A9%20%C3%91')
    t.equal(encodeIdHeaderValue('a\r\nX-Evil: 1'), 'a%0D%0AX-Evil:%201')
    t.equal(
      encodeIdHeaderValue('%C3%A9'),
      '%25C3%25A9',
      'a literal % is encoded, so the encoding is reversible',
    )
    t.equal(decodeURIComponent(encodeIdHeaderValue('日本 %x')), '日本 %x')
    t.equal(jsonHeaderValue(['é', 'a\nb', '\u007f']), '["\\u00e9","a\\nb","\\u007f"]')
    t.same(JSON.parse(jsonHeaderValue({ k: '日本' })), { k: '日本' })
    const plan = await enforcer().plan(
      planInput({ principal: jwtUser('ü\u0000', ['s\u00e9']), path: '/health' }),
    )
    for (const [, value] of plan.headers.inject ?? []) t.match(value, /^[\x21-\x7e]+$/, value)
  },
)

void t.test('IDENT-1: X-User-ID from clients (attack class 11)', async (t) => {
  const gateway = enforcer()
  const withUid = await gateway.plan(
    planInput({
      principal: jwtUser('alice'),
      headers: { 'x-user-id': 'victim', x_user_id: 'victim2' },
    }),
  )
  t.ok(
    withUid.headers.drop?.has('x-user-id'),
    'client copies dropped (normalized name covers X_User_Id)',
  )
  t.equal(injected(withUid)['x-user-id'], 'alice')

  const anonymous = await gateway.plan(planInput({ headers: { 'x-user-id': 'user-456' } }))
  t.notOk(anonymous.headers.drop?.has('x-user-id'), 'anonymous value stays (AgentOS honours it)')
  t.same(injected(anonymous), {})

  for (const value of ['sa:evil', '__scheduler__', '__oauth__:client', 'alice, sa:evil']) {
    for (const principal of [ANONYMOUS, SECURITY_KEY]) {
      for (const name of ['x-user-id', 'x_user_id']) {
        const error = await refusal(() =>
          gateway.plan(planInput({ principal, headers: { [name]: value } })),
        )
        t.equal(error.status, 403)
        t.equal(error.detail, 'Client-supplied user_id may not claim a reserved principal')
      }
    }
  }
  const serviceCaller = await gateway.plan(
    planInput({ principal: serviceAccount('bot'), headers: { 'x-user-id': 'sa:evil' } }),
  )
  t.equal(
    injected(serviceCaller)['x-user-id'],
    'sa:bot',
    'a caller with a uid is never refused: the value is replaced',
  )
})

void t.test(
  'IDENT-1: strip_headers are exposed normalized, assertion header included when enabled; a client never sends X-Schedule-Owner',
  async (t) => {
    const names = enforcer().identityHeaderNames
    t.same([...names].sort(), [
      'x-auth-request-email',
      'x-auth-request-user',
      'x-forwarded-email',
      'x-forwarded-groups',
      'x-forwarded-preferred-username',
      'x-forwarded-user',
      'x-remote-user',
      'x-schedule-owner',
    ])
    t.same(
      [
        ...enforcer({ identity: { strip_headers: ['X_Remote_User', 'X-Tenant'] } })
          .identityHeaderNames,
      ],
      ['x-remote-user', 'x-tenant', 'x-schedule-owner'],
    )
  },
)
