import t from 'tap'
import { MISSING_USER_IDENTITY } from '../../../src/user-identity.js'
import { QUEUE_ADMIN_REQUIRED } from '../../../src/policy/catalogue/agentos-3.0.js'
import { AGENTOS_LINES, agentosCatalogue } from '../../../src/policy/catalogue/index.js'
import { testCatalogue } from '../../helpers/catalogue.js'
import {
  ADMIN,
  allowed,
  authorizer,
  decide,
  denied,
  deniedWith,
  jwt,
  principal,
} from './helpers.js'

const v29 = testCatalogue()
const v30 = testCatalogue({ line: '3.0' })

void t.test('a path asked for again gets the same frozen match, per method', async (t) => {
  const catalogue = testCatalogue()
  const first = catalogue.match('GET', '/agents/a1')
  t.ok(Object.isFrozen(first) && Object.isFrozen(first.segments), 'shared, so never changed')
  t.equal(catalogue.match('GET', '/agents/a1'), first, 'remembered')
  const run = catalogue.match('POST', '/agents/a1')
  t.not(run, first, 'another method, another match')
  t.equal(run.method, 'POST')
  const head = catalogue.match('HEAD', '/agents/a1')
  t.equal(head.method, 'GET', 'HEAD is decided as its GET')
  t.same(head.gate, first.gate)
  // Far more paths than are remembered: each is still matched on its own, the first again later.
  const wrong: number[] = []
  for (let index = 0; index < 5_000; index++) {
    if (catalogue.match('GET', `/agents/x${index}`).gate?.id !== `x${index}`) wrong.push(index)
  }
  t.same(wrong, [], 'each of them matched on its own')
  const again = catalogue.match('GET', '/agents/a1')
  t.same(again, first, 'matched again, the same answer')
  const long = `/agents/${'a'.repeat(600)}`
  t.not(catalogue.match('GET', long), catalogue.match('GET', long), 'a long path is not kept')
  t.equal(catalogue.match('GET', long).gate?.id, 'a'.repeat(600))
})

void t.test('one match gives the rule, the route, its gate and the resource context', async (t) => {
  const run = v29.match('POST', '/agents/a1/runs')
  t.same(run.rule, { template: '/agents/*/runs', scopes: ['agents:run'], source: 'default' })
  t.equal(run.route?.template, '/agents/{id}/runs')
  t.equal(run.route?.identity, 'run')
  t.same(run.gate, { family: 'agents', id: 'a1', action: 'run', scope: 'agents:run' })
  t.same(run.context, { family: 'agents', id: 'a1' })
  t.equal(run.familyLabel, '/agents')

  const resume = v29.match('POST', '/teams/t1/runs/r1/resume')
  t.equal(resume.rule, undefined, 'resume has no rule in AgentOS’s table')
  t.same(resume.gate, { family: 'teams', id: 't1', action: 'run', scope: 'teams:run' })
  t.equal(resume.route?.identity, 'run-gated')

  t.equal(v29.match('POST', '/workflows/w1/sessions/s1/fork').route, undefined, 'no workflow fork')
  t.equal(v29.match('POST', '/agents/a1/sessions/s1/fork').route?.identity, 'fork')
  t.same(v29.match('GET', '/agents/a1').gate, {
    family: 'agents',
    id: 'a1',
    action: 'read',
    scope: 'agents:read',
  })
  t.equal(v29.match('GET', '/agents/a1/unknown').gate, undefined, 'only the routes AgentOS gates')
  t.same(v29.match('GET', '/agents/a1/unknown').rule?.template, '/agents/{**}')
})

void t.test('HEAD is decided as the GET it mirrors unless a rule names HEAD', async (t) => {
  const head = v29.match('HEAD', '/agents/a1/runs')
  t.equal(head.method, 'GET')
  t.same(head.gate, { family: 'agents', id: 'a1', action: 'run', scope: 'agents:run' })
  const own = testCatalogue({ scopeMappings: { 'HEAD /agents/{id}/runs': [] } })
  t.equal(own.match('HEAD', '/agents/a1/runs').method, 'HEAD')
})

void t.test('routes for every method, and labels from what the catalogue knows', async (t) => {
  for (const method of ['GET', 'POST', 'PATCH', 'DELETE', 'PUT']) {
    t.equal(v29.match(method, '/learnings/l1').route?.identity, 'learnings', method)
  }
  t.equal(v29.match('GET', '/').familyLabel, '/')
  t.equal(v29.match('GET', '/queue/jobs').familyLabel, 'other', '2.9 has no queue')
  t.equal(v30.match('GET', '/queue/jobs').familyLabel, '/queue')
  t.equal(v29.match('GET', '/nowhere/x').familyLabel, 'other')
  t.equal(v29.match('GET', '/info').route?.identity, 'info')
  t.equal(v29.match('DELETE', '/mcp/x').route?.surface, 'mcp')
})

void t.test('each compiled route knows the scopes the table in force gives it', async (t) => {
  const byKey = new Map(v30.routes.map((route) => [`${route.method} ${route.template}`, route]))
  t.same(byKey.get('POST /components/{component_id}/restore')?.scopes, ['components:delete'])
  t.same(byKey.get('GET /queue/jobs')?.scopes, undefined, 'the queue is not in the table')
  t.same(byKey.get('POST /agents/{id}/runs')?.scopes, ['agents:run'])
  const custom = testCatalogue({ scopeMappings: { 'POST /agents/{id}/runs': ['custom:run'] } })
  const run = custom.routes.find(
    (route) => route.method === 'POST' && route.template === '/agents/{id}/runs',
  )
  t.same(run?.scopes, ['custom:run'])
})

void t.test('every line names its line, versions and scheduler scopes', async (t) => {
  for (const line of AGENTOS_LINES) {
    const catalogue = agentosCatalogue(line)
    t.equal(catalogue.line, line)
    t.ok(catalogue.versions.length > 0)
    t.ok(catalogue.schedulerScopes.includes('agents:run'))
  }
  t.ok(agentosCatalogue('2.9').schedulerScopes.includes('schedules:write'))
  t.notOk(agentosCatalogue('3.0').schedulerScopes.includes('schedules:write'))
  t.notOk(agentosCatalogue('3.0').schedulerScopes.includes('schedules:delete'))
})

void t.test('3.0: the job queue needs the admin scope of every identified caller', async (t) => {
  const gate = authorizer(null, { line: '3.0' })
  const refused = deniedWith(QUEUE_ADMIN_REQUIRED)
  const root = { ...principal('security_key', null, false), userId: null }
  const anonymous = { ...principal('anonymous', null, false), userId: null }
  for (const [method, path] of [
    ['GET', '/queue/jobs'],
    ['GET', '/queue/jobs/j1'],
    ['POST', '/queue/jobs/j1/requeue'],
    ['GET', '/queue/stats'],
  ] as const) {
    t.same(decide(jwt(), method, path, gate), refused, `${path}: no scopes`)
    t.same(decide(jwt('agents:run'), method, path, gate), refused)
    t.same(decide(principal('service_account', ['agents:run']), method, path, gate), refused)
    t.same(decide(principal('jwt', [], false), method, path, gate), refused, 'RBAC off too')
    t.same(decide(principal('scheduler', ['agents:run']), method, path, gate), refused)
    t.same(decide(jwt(ADMIN), method, path, gate), allowed())
    t.same(decide(root, method, path, gate), allowed(), 'the security key')
    t.same(decide(anonymous, method, path, gate), allowed(), 'an open instance')
  }
  t.same(decide(jwt(), 'GET', '/queue/jobs'), allowed(), '2.9: no such check')
})

void t.test('3.0: the two new rules of scopes.py', async (t) => {
  const gate = authorizer(null, { line: '3.0' })
  t.same(decide(jwt(), 'GET', '/metrics/refresh/status', gate), denied('metrics:read'))
  t.same(decide(jwt('metrics:read'), 'GET', '/metrics/refresh/status', gate), allowed())
  t.same(
    decide(jwt('components:write'), 'POST', '/components/c1/restore', gate),
    denied('components:delete'),
  )
  t.same(decide(jwt('components:delete'), 'POST', '/components/c1/restore', gate), allowed())
  t.same(decide(jwt(), 'GET', '/metrics/refresh/status'), allowed(), '2.9: unmapped')
})

void t.test('3.0 under isolation: a caller without a user id is refused (V3-ISO-1)', async (t) => {
  const isolated = authorizer(null, { line: '3.0', userIsolation: true })
  const anonymousJwt = { ...jwt('sessions:read', 'agents:read', 'agents:run'), userId: null }
  const missing = deniedWith(MISSING_USER_IDENTITY)
  t.same(decide(anonymousJwt, 'GET', '/sessions', isolated), missing)
  t.same(decide(anonymousJwt, 'POST', '/agents/a1/runs', isolated), missing)
  t.same(decide({ ...anonymousJwt, userId: '' }, 'GET', '/sessions', isolated), missing, 'sub ""')
  t.same(decide(anonymousJwt, 'GET', '/agents', isolated), allowed('all'), 'not on listings')
  t.same(
    decide({ ...anonymousJwt, scopes: [] }, 'GET', '/sessions', isolated),
    denied('sessions:read'),
    'the scope check comes first',
  )
  t.same(decide({ ...jwt(ADMIN), userId: null }, 'GET', '/sessions', isolated), allowed())
  t.same(
    decide(
      { ...principal('security_key', null, false), userId: null },
      'GET',
      '/sessions',
      isolated,
    ),
    allowed(),
  )
  t.same(
    decide({ ...principal('jwt', [], false), userId: null }, 'GET', '/sessions', isolated),
    missing,
    'whatever authorization says',
  )
  const open = authorizer(null, { line: '3.0' })
  t.same(decide(anonymousJwt, 'GET', '/sessions', open), allowed(), 'only under isolation')
  const v29Isolated = authorizer(null, { userIsolation: true })
  t.same(decide(anonymousJwt, 'GET', '/sessions', v29Isolated), allowed(), '2.9 lets it through')
})

void t.test('deny_unmapped_routes keeps the routes whose handlers check callers', async (t) => {
  const strict = authorizer(null, { line: '3.0', denyUnmapped: true })
  t.same(decide(jwt(ADMIN), 'GET', '/queue/stats', strict), allowed())
  t.same(
    decide(jwt('agents:a1:run'), 'POST', '/agents/a1/runs/r/resume', strict),
    allowed(),
    'a gated route without a rule',
  )
  t.match(decide(jwt(ADMIN), 'GET', '/mcp', strict), { allowed: false, status: 403 })
})

void t.test("Portcullis's own routes are in every line's table, after the line's", async (t) => {
  for (const catalogue of [v29, v30]) {
    const line = catalogue.line
    t.same(catalogue.match('GET', '/service-accounts/events').rule, {
      template: '/service-accounts/events',
      scopes: ['service_accounts:read'],
      source: 'portcullis',
    })
    t.same(catalogue.match('GET', '/service-accounts/a1/events').rule, {
      template: '/service-accounts/*/events',
      scopes: ['service_accounts:read'],
      source: 'portcullis',
    })
    t.equal(catalogue.match('GET', '/service-accounts/a1').rule, undefined, `${line}: no GET {id}`)
    t.same(
      catalogue.match('DELETE', '/service-accounts/events').rule?.template,
      '/service-accounts/{**}',
      `${line}: DELETE is the line's own rule`,
    )
    t.notOk(
      catalogue.defaultScopes.entries.some((entry) => entry.template.endsWith('/events')),
      `${line}: not in AgentOS's defaults`,
    )
  }
  const overridden = testCatalogue({
    scopeMappings: { 'GET /service-accounts/events': ['audit:read'] },
  })
  t.same(overridden.match('GET', '/service-accounts/events').rule?.scopes, ['audit:read'])
})
