import t from 'tap'
import { allowed, authorizer, decide, denied, jwt, principal } from './helpers.js'

// Checklist part C, lines 65–76: route families other than agents, teams and workflows.

void t.test(
  'ROUTE-1 /metrics/refresh/status is unmapped; /metrics needs metrics:read',
  async (t) => {
    t.same(decide(jwt(), 'GET', '/metrics/refresh/status'), allowed())
    t.same(decide(jwt(), 'GET', '/metrics'), denied('metrics:read'))
  },
)

void t.test('ROUTE-1 GET /config with config:read or the legacy system:read', async (t) => {
  t.same(decide(jwt('config:read'), 'GET', '/config'), allowed())
  t.same(decide(jwt('system:read'), 'GET', '/config'), allowed())
})

void t.test(
  'ROUTE-1 GET /registry needs registry:read; config and system do not count',
  async (t) => {
    t.same(decide(jwt('registry:read'), 'GET', '/registry'), allowed())
    t.same(decide(jwt('config:read'), 'GET', '/registry'), denied('registry:read'))
    t.same(decide(jwt('system:read'), 'GET', '/registry'), denied('registry:read'))
  },
)

const COMPONENT_READS = [
  '/components',
  '/components/x',
  '/components/x/configs',
  '/components/x/configs/1',
  '/components/x/configs/current',
]
const COMPONENT_WRITES: [string, string][] = [
  ['POST', '/components'],
  ['PATCH', '/components/x'],
  ['POST', '/components/x/configs'],
  ['PATCH', '/components/x/configs/1'],
  ['POST', '/components/x/configs/1/set-current'],
]
const COMPONENT_DELETES = ['/components/x', '/components/x/configs/1']

void t.test('ROUTE-1 component reads need components:read', async (t) => {
  for (const path of COMPONENT_READS) {
    t.same(decide(jwt(), 'GET', path), denied('components:read'), path)
    t.same(decide(jwt('agents:read'), 'GET', path), denied('components:read'), path)
    t.same(decide(jwt('components:read'), 'GET', path), allowed(), path)
  }
})

void t.test('ROUTE-1 component writes need components:write', async (t) => {
  for (const [method, path] of COMPONENT_WRITES) {
    t.same(decide(jwt('components:read'), method, path), denied('components:write'), path)
    t.same(decide(jwt('components:delete'), method, path), denied('components:write'), path)
    t.same(decide(jwt('components:write'), method, path), allowed(), path)
  }
})

void t.test('ROUTE-1 component deletes need components:delete', async (t) => {
  for (const path of COMPONENT_DELETES) {
    t.same(decide(jwt('components:read'), 'DELETE', path), denied('components:delete'), path)
    t.same(decide(jwt('components:write'), 'DELETE', path), denied('components:delete'), path)
    t.same(decide(jwt('components:delete'), 'DELETE', path), allowed(), path)
  }
})

void t.test(
  'ROUTE-1 traces need traces:read; an unknown trace id is the upstream 404',
  async (t) => {
    for (const path of ['/traces', '/trace_session_stats']) {
      t.same(decide(jwt('traces:read'), 'GET', path), allowed(), path)
      t.same(decide(jwt(), 'GET', path), denied('traces:read'), path)
    }
    t.same(decide(jwt('traces:read'), 'GET', '/traces/nonexistent'), allowed())
  },
)

void t.test('SCOPE-3 /knowledge/content/agents-x is no agents path', async (t) => {
  t.same(decide(jwt('agents:read'), 'GET', '/knowledge/content/agents-x'), denied('knowledge:read'))
})

void t.test('ROUTE-1 GET /sessions with teams:read → 403ip(sessions:read)', async (t) => {
  t.same(decide(jwt('teams:read'), 'GET', '/sessions'), denied('sessions:read'))
})

void t.test('RBAC-1 a custom admin scope makes agent_os:admin ordinary', async (t) => {
  const gate = authorizer(null, { adminScope: 'os:admin' })
  t.same(decide(jwt('os:admin'), 'GET', '/agents', gate), allowed('all'))
  t.same(decide(jwt('agent_os:admin'), 'GET', '/agents', gate), denied('agents:read'))
  const agentosDefault = authorizer(null, { adminScope: 'agent_os:admin' })
  t.same(decide(jwt('agent_os:admin'), 'GET', '/agents', agentosDefault), allowed('all'))
  t.same(decide(jwt('os:admin'), 'GET', '/agents', agentosDefault), denied('agents:read'))
})

void t.test(
  'ROUTE-3 scope_mappings {"GET /test": []} allows a caller without scopes',
  async (t) => {
    // Enabling authorization implicitly is the configuration's job; here the JWT has it on.
    t.same(decide(jwt(), 'GET', '/test', authorizer({ 'GET /test': [] })), allowed())
  },
)

void t.test(
  'AUTH-8 RBAC off: JWT([]) lists all agents unfiltered and reads sessions',
  async (t) => {
    const who = principal('jwt', [], false)
    t.same(decide(who, 'GET', '/agents'), allowed(undefined))
    t.same(decide(who, 'GET', '/sessions'), allowed(undefined))
    t.same(decide(who, 'GET', '/agents/a1/runs'), allowed(undefined), 'route gates are off too')
  },
)
