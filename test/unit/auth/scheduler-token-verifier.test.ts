import t from 'tap'
import { SchedulerTokenVerifier } from '../../../src/auth/scheduler-token-verifier.js'
import { agentosCatalogue } from '../../../src/policy/catalogue/index.js'
import { NOT_RESPONSIBLE } from '../../../src/auth/verifier.js'
import { fixtures } from '../../helpers/jwt.js'
import { authConfig, bearer } from './helpers.js'

const SCOPES_2_9 = agentosCatalogue('2.9').schedulerScopes
const EXPECTED_SCOPES = [
  'agents:read',
  'agents:run',
  'teams:read',
  'teams:run',
  'workflows:read',
  'workflows:run',
  'schedules:read',
  'schedules:write',
  'schedules:delete',
]

void t.test(
  '77: J mode (JWT authorization on): the scheduler principal, scopes enforced',
  async (t) => {
    const auth = authConfig({
      verification_keys: [fixtures.hmacSecret()],
      algorithm: 'HS256',
      authorization: true,
      internal_service_token: 'itok-scheduler-3e9a7c1f5b2d8e4a6c0f',
    })
    const principal = new SchedulerTokenVerifier(auth, SCOPES_2_9).verify(
      bearer('itok-scheduler-3e9a7c1f5b2d8e4a6c0f'),
    )
    t.same(principal, {
      kind: 'scheduler',
      authenticated: true,
      userId: '__scheduler__',
      sessionId: null,
      scopes: EXPECTED_SCOPES,
      authorizationEnabled: true,
      expiresAt: null,
    })
  },
)

void t.test('78: S mode (security key): authorization off', async (t) => {
  const auth = authConfig({
    security_key: 'root-key-5f0c8e2a9b7d4c1e6a3f8b0d',
    internal_service_token: 'itok-scheduler-3e9a7c1f5b2d8e4a6c0f',
  })
  const principal = new SchedulerTokenVerifier(auth, SCOPES_2_9).verify(
    bearer('itok-scheduler-3e9a7c1f5b2d8e4a6c0f'),
  )
  t.not(principal, NOT_RESPONSIBLE)
  if (principal === NOT_RESPONSIBLE) return
  t.equal(principal.authorizationEnabled, false)
  t.equal(principal.userId, '__scheduler__')
})

void t.test('authorization implied by scope_mappings', async (t) => {
  const auth = authConfig({
    verification_keys: ['k'],
    algorithm: 'HS256',
    scope_mappings: { 'GET /x': [] },
    internal_service_token: 'itok-scheduler-3e9a7c1f5b2d8e4a6c0f',
  })
  const principal = new SchedulerTokenVerifier(auth, SCOPES_2_9).verify(
    bearer('itok-scheduler-3e9a7c1f5b2d8e4a6c0f'),
  )
  t.equal(principal !== NOT_RESPONSIBLE && principal.authorizationEnabled, true)
})

void t.test(
  '3.0: the scheduler token no longer writes or deletes schedules (V3-AUTH-1)',
  async (t) => {
    const auth = authConfig({ security_key: 'root-key', internal_service_token: 'itok' })
    const verifier = new SchedulerTokenVerifier(auth, agentosCatalogue('3.0').schedulerScopes)
    const principal = verifier.verify(bearer('itok'))
    if (principal === NOT_RESPONSIBLE) throw new Error('expected a principal')
    t.same(principal.scopes, [
      'agents:read',
      'agents:run',
      'teams:read',
      'teams:run',
      'workflows:read',
      'workflows:run',
      'schedules:read',
    ])
  },
)

void t.test('anything else is not its kind', async (t) => {
  const verifier = new SchedulerTokenVerifier(
    authConfig({ internal_service_token: 'itok-scheduler-3e9a7c1f5b2d8e4a6c0f' }),
    SCOPES_2_9,
  )
  for (const token of [
    'itok2',
    'ITOK',
    'ito',
    'itok-scheduler-3e9a7c1f5b2d8e4a6c0f ',
    '',
    'svc_pat_x',
  ]) {
    t.equal(verifier.verify(bearer(token)), NOT_RESPONSIBLE, JSON.stringify(token))
  }
  const unconfigured = new SchedulerTokenVerifier(authConfig(), SCOPES_2_9)
  t.equal(
    unconfigured.verify(bearer('itok-scheduler-3e9a7c1f5b2d8e4a6c0f')),
    NOT_RESPONSIBLE,
    'no token configured',
  )
  t.equal(unconfigured.verify(bearer('')), NOT_RESPONSIBLE)
})

void t.test('scopes cannot be changed through a principal', async (t) => {
  const verifier = new SchedulerTokenVerifier(
    authConfig({ internal_service_token: 'itok-scheduler-3e9a7c1f5b2d8e4a6c0f' }),
    SCOPES_2_9,
  )
  const principal = verifier.verify(bearer('itok-scheduler-3e9a7c1f5b2d8e4a6c0f'))
  if (principal === NOT_RESPONSIBLE) throw new Error('expected a principal')
  t.throws(() => (principal.scopes as string[]).push('os:admin'))
})
