import t from 'tap'
import { UNMAPPED_ROUTE_DENIAL } from '../../../src/policy/authorizer.js'
import { DEFAULT_TOKEN_SCOPES } from '../../../src/policy/scope.js'
import {
  ADMIN,
  allowed,
  authorizer,
  decide,
  denied,
  deniedWith,
  jwt,
  principal,
  SCHEDULER_SCOPES,
} from './helpers.js'

const scheduler = (authorizationEnabled: boolean) =>
  principal('scheduler', SCHEDULER_SCOPES, authorizationEnabled)

void t.test('6.11: who has route scopes and route gates enforced', async (t) => {
  const none = principal('service_account', [], false)
  t.same(
    decide(none, 'GET', '/sessions'),
    denied('sessions:read'),
    'PAT: always, whatever the flag',
  )
  t.same(
    decide(none, 'POST', '/agents/a1/runs/r/resume'),
    deniedWith('Access denied to run this agent'),
  )
  t.same(decide(principal('jwt', [], true), 'GET', '/sessions'), denied('sessions:read'))
  t.same(decide(principal('jwt', [], false), 'GET', '/sessions'), allowed())
  t.same(decide(scheduler(true), 'GET', '/sessions'), denied('sessions:read'))
  t.same(decide(scheduler(false), 'GET', '/sessions'), allowed(), 'scheduler, authorization off')
  for (const kind of ['security_key', 'anonymous'] as const) {
    const who = principal(kind, null, false)
    t.same(decide(who, 'DELETE', '/sessions'), allowed(), kind)
    t.same(decide(who, 'GET', '/agents'), allowed(undefined), `${kind}: listing unfiltered`)
    t.same(decide(who, 'POST', '/agents/a1/sessions/s/fork'), allowed(), `${kind}: no gates`)
  }
})

void t.test('AUTH-7 the scheduler with authorization on', async (t) => {
  t.same(decide(scheduler(true), 'GET', '/agents'), allowed('all'))
  t.same(decide(scheduler(true), 'GET', '/sessions'), denied('sessions:read'))
  t.same(decide(scheduler(true), 'POST', '/service-accounts'), denied('service_accounts:write'))
})

void t.test('AUTH-7 the scheduler is checked strictly: no listing fallback', async (t) => {
  const gate = authorizer({ 'GET /agents': ['agents:read', 'sessions:read'] })
  const required = 'agents:read, sessions:read'
  t.same(decide(scheduler(true), 'GET', '/agents', gate), denied(required))
  t.same(
    decide(jwt(...SCHEDULER_SCOPES), 'GET', '/agents', gate),
    allowed('all'),
    'a JWT falls back',
  )
  t.same(decide(jwt('agents:a1:read'), 'GET', '/agents', gate), allowed(['a1']))
})

void t.test(
  'AUTH-8 PATs: default scopes cannot list; per-resource PATs see their ids',
  async (t) => {
    const pat = principal('service_account', DEFAULT_TOKEN_SCOPES)
    t.same(decide(pat, 'GET', '/agents'), denied('agents:read'))
    t.same(decide(pat, 'GET', '/agents/a1'), denied('agents:read'))
    t.same(decide(pat, 'GET', '/config'), allowed())
    t.same(decide(pat, 'DELETE', '/sessions'), denied('sessions:delete'))
    const scoped = principal('service_account', ['agents:a1:read', 'agents:a1:run'])
    t.same(decide(scoped, 'GET', '/agents'), allowed(['a1']))
    t.same(decide(scoped, 'GET', '/agents/a2'), denied('agents:read'))
    t.same(decide(scoped, 'POST', '/agents/a2/runs'), denied('agents:run'))
  },
)

void t.test('listing: only GET, only id-less paths of the first requirement family', async (t) => {
  t.same(decide(jwt('agents:a1:write'), 'POST', '/agents'), denied('agents:write'))
  t.same(decide(jwt('agents:a1:read'), 'GET', '/a2a/agents'), allowed(), 'unmapped: no listing')
  const foreign = authorizer({ 'GET /agents': ['knowledge:read'] })
  t.same(decide(jwt('agents:a1:read'), 'GET', '/agents', foreign), denied('knowledge:read'))
  const onA2a = authorizer({ 'GET /a2a/agents': ['agents:read'] })
  t.same(decide(jwt('agents:a1:read'), 'GET', '/a2a/agents', onA2a), allowed(['a1']))
  t.same(decide(jwt('teams:t1:read'), 'GET', '/a2a/agents', onA2a), allowed([]), 'no real route')
})

void t.test('listing route with [] counts read and run ids, and refuses none', async (t) => {
  const open = authorizer({ 'GET /agents': [] })
  t.same(decide(jwt('agents:a1:run'), 'GET', '/agents', open), allowed(['a1']))
  t.same(decide(jwt('agents:run'), 'GET', '/agents', open), allowed('all'))
  t.same(decide(jwt(), 'GET', '/agents', open), denied(''))
})

void t.test(
  'route gates: every gated route, satisfied by admin, global, wildcard or that id',
  async (t) => {
    const gated: [string, string, string][] = [
      ['GET', '/agents/a1/runs', 'run this agent'],
      ['GET', '/teams/a1/runs/r1', 'run this team'],
      ['GET', '/workflows/a1/runs/r1/checkpoints', 'run this workflow'],
      ['GET', '/agents/a1/runs/r1/checkpoints/3', 'run this agent'],
      ['POST', '/agents/a1/runs/r1/resume', 'run this agent'],
      ['POST', '/teams/a1/runs/r1/resume', 'run this team'],
      ['POST', '/workflows/a1/runs/r1/resume', 'run this workflow'],
      ['POST', '/agents/a1/sessions/s1/fork', 'run this agent'],
      ['POST', '/teams/a1/sessions/s1/fork', 'run this team'],
    ]
    for (const [method, path, what] of gated) {
      const family = path.split('/')[1] ?? ''
      const read = method === 'GET' ? [`${family}:read`] : []
      t.same(decide(jwt(...read), method, path), deniedWith(`Access denied to ${what}`), path)
      t.same(
        decide(jwt(...read, `${family}:a2:run`), method, path),
        deniedWith(`Access denied to ${what}`),
      )
      for (const run of [`${family}:run`, `${family}:*:run`, `${family}:a1:run`]) {
        t.same(decide(jwt(...read, run), method, path), allowed(), `${path} with ${run}`)
      }
      t.same(decide(jwt(ADMIN), method, path), allowed(), `${path} as admin`)
    }
    t.same(decide(jwt(), 'POST', '/workflows/w1/sessions/s1/fork'), allowed(), 'no workflow fork')
  },
)

void t.test('route gates also hold when a custom mapping opens the route', async (t) => {
  const open = authorizer({ 'GET /agents/{id}': [], 'POST /agents/{id}/runs': [] })
  t.same(decide(jwt(), 'GET', '/agents/a1', open), deniedWith('Access denied to read this agent'))
  t.same(
    decide(jwt(), 'POST', '/agents/a1/runs', open),
    deniedWith('Access denied to run this agent'),
  )
  t.same(decide(jwt('agents:a1:run'), 'POST', '/agents/a1/runs', open), allowed())
})

void t.test(
  'the quirk: a foreign 2-part scope on /agents/<id>/… becomes an agents scope',
  async (t) => {
    const gate = authorizer({ 'GET /agents/{id}/special': ['knowledge:read'] })
    t.same(
      decide(jwt('knowledge:read'), 'GET', '/agents/a1/special', gate),
      denied('knowledge:read'),
    )
    t.same(decide(jwt('agents:a1:read'), 'GET', '/agents/a1/special', gate), allowed())
  },
)

void t.test('a custom interface prefix gives global requirements only', async (t) => {
  const gate = authorizer({ 'POST /protocol/agents/{id}/v1/message:send': ['agents:run'] })
  const path = '/protocol/agents/a1/v1/message:send'
  t.same(decide(jwt('agents:a1:run'), 'POST', path, gate), denied('agents:run'))
  t.same(decide(jwt('agents:*:run'), 'POST', path, gate), allowed())
  t.same(decide(jwt('config:read'), 'POST', path, gate), denied('agents:run'))
})

void t.test('denyUnmapped refuses routes that no rule and no gate covers', async (t) => {
  const gate = authorizer({ 'GET /metrics/refresh/status': [] }, { denyUnmapped: true })
  t.same(decide(jwt(ADMIN), 'GET', '/mcp-like', gate), deniedWith(UNMAPPED_ROUTE_DENIAL))
  t.same(decide(jwt(), 'HEAD', '/agents', gate), denied('agents:read'), 'HEAD is its GET')
  t.same(decide(jwt(), 'HEAD', '/mcp-like', gate), deniedWith(UNMAPPED_ROUTE_DENIAL))
  t.same(decide(jwt(), 'GET', '/metrics/refresh/status', gate), allowed(), '[] is a mapping')
  t.same(decide(jwt('agents:a1:run'), 'POST', '/agents/a1/runs/r/resume', gate), allowed())
  t.same(
    decide(jwt(), 'POST', '/agents/a1/runs/r/resume', gate),
    deniedWith('Access denied to run this agent'),
  )
  t.same(
    decide(principal('jwt', [], false), 'GET', '/x', gate),
    allowed(),
    'not for unchecked callers',
  )
  t.same(decide(principal('security_key', null, false), 'GET', '/x', gate), allowed())
})

void t.test('the decision carries the rule and its scope templates', async (t) => {
  const gate = authorizer()
  const decision = gate.authorize(jwt('agents:a1:read'), 'GET', '/agents/a1')
  t.same(decision.route, { template: '/agents/{**}', scopes: ['agents:read'], source: 'default' })
  t.same(decision.requiredScopes, ['agents:read'])
  t.equal(decision.accessibleIds, undefined)
  const unmapped = gate.authorize(jwt(), 'GET', '/metrics/refresh/status')
  t.same(unmapped, { route: undefined, accessibleIds: undefined, requiredScopes: [] })
  t.throws(() => gate.authorize(jwt(), 'GET', '/sessions'), {
    name: 'GatewayError',
    code: 'ACCESS_DENIED',
    status: 403,
    reason: 'rbac.scope',
  })
})

void t.test('HEAD is authorized with the scopes of the GET it mirrors', async (t) => {
  t.same(decide(jwt(), 'HEAD', '/sessions'), denied('sessions:read'))
  t.same(decide(jwt('sessions:read'), 'HEAD', '/sessions'), allowed())
  t.same(decide(jwt('agents:a2:read'), 'HEAD', '/agents/a1'), denied('agents:read'))
  t.same(decide(jwt('agents:a1:read'), 'HEAD', '/agents/a1'), allowed())
  t.same(
    decide(jwt(), 'HEAD', '/agents/a1/runs/r'),
    denied('agents:read'),
    'the run-scope gate of GET-run applies too',
  )
  t.same(
    decide(jwt('agents:a1:read'), 'HEAD', '/agents/a1/runs/r'),
    deniedWith('Access denied to run this agent'),
  )
  t.same(decide(principal('jwt', [], false), 'HEAD', '/sessions'), allowed(), 'RBAC off')
  const custom = authorizer({ 'HEAD /sessions': [] })
  t.same(decide(jwt(), 'HEAD', '/sessions', custom), allowed(), 'a HEAD rule is its own')
})
