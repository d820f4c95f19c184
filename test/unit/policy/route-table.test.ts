import t from 'tap'
import { SCOPE_MAPPINGS_2_9 as DEFAULT_SCOPE_MAPPINGS } from '../../../src/policy/catalogue/agentos-2.9.js'
import {
  mappingKeyProblem,
  parseMappingKey,
  RouteTable,
  type RouteEntry,
} from '../../../src/policy/route-table.js'
import { agentosMappings, agentosRequiredScopes } from './agentos-matcher.js'

function rule(method: string, template: string, scopes: string[] = [template]): RouteEntry {
  return { method, template, scopes, source: 'custom' }
}

void t.test(
  'parseMappingKey splits "<METHOD> <path>" and refuses what it cannot match',
  async (t) => {
    t.same(parseMappingKey('GET /reports/{id}'), { method: 'GET', template: '/reports/{id}' })
    t.same(parseMappingKey('POST /a2a/agents/*/v1/message:send'), {
      method: 'POST',
      template: '/a2a/agents/*/v1/message:send',
    })
    t.same(parseMappingKey('GET /files/{**}'), { method: 'GET', template: '/files/{**}' })
    t.same(parseMappingKey('GET /'), { method: 'GET', template: '/' })
    for (const key of [
      'GET',
      'GET reports',
      'get /reports',
      'GET  /reports',
      'GET /reports/',
      'GET /a//b',
      'GET /files/{**}/x',
      'GET /reports/*.json',
      'GET /reports/{id',
      'GET /reports/{1d}',
      'GET /a?b',
      'GET /a/[ab]',
    ]) {
      t.type(mappingKeyProblem(key), 'string', key)
      t.throws(() => parseMappingKey(key), { name: 'GatewayError', code: 'INTERNAL' }, key)
    }
  },
)

void t.test('most specific wins: literal > one segment > tail, from the left', async (t) => {
  const table = new RouteTable([
    rule('GET', '/a/{x}/c'),
    rule('GET', '/a/b/{**}'),
    rule('GET', '/a/{**}'),
    rule('GET', '/a/b/c/d'),
    rule('GET', '/a/*/*/e'),
  ])
  t.equal(table.match('GET', '/a/b/c')?.template, '/a/b/{**}', 'a literal earlier beats later')
  t.equal(table.match('GET', '/a/z/c')?.template, '/a/{x}/c')
  t.equal(table.match('GET', '/a/z/d')?.template, '/a/{**}')
  t.equal(table.match('GET', '/a/b/c/d')?.template, '/a/b/c/d')
  t.equal(table.match('GET', '/a/b/c/e')?.template, '/a/b/{**}', 'b literal beats * at segment 2')
  t.equal(table.match('GET', '/a/z/y/e')?.template, '/a/*/*/e')
  t.equal(table.match('GET', '/a')?.template, undefined, '{**} needs at least one segment')
})

void t.test('matching backtracks out of a literal branch that dead-ends', async (t) => {
  const table = new RouteTable([rule('GET', '/a/b/c'), rule('GET', '/a/{x}/d')])
  t.equal(table.match('GET', '/a/b/d')?.template, '/a/{x}/d')
  t.equal(table.match('GET', '/a/b/c')?.template, '/a/b/c')
  t.equal(table.match('GET', '/a/b/e'), undefined)
})

void t.test('method and path are case-sensitive; the root and odd inputs', async (t) => {
  const table = RouteTable.fromConfig({
    defaults: DEFAULT_SCOPE_MAPPINGS,
    scopeMappings: { 'GET /': ['root:read'] },
  })
  t.equal(table.match('GET', '/Agents'), undefined)
  t.equal(table.match('get', '/agents'), undefined)
  t.same(table.match('GET', '/')?.scopes, ['root:read'])
  t.equal(table.match('GET', 'agents'), undefined)
  t.equal(table.match('GET', ''), undefined)
})

void t.test('a custom rule is not shadowed by a broader default, unlike AgentOS', async (t) => {
  const custom = { 'GET /agents/{id}/special': ['special:read'] }
  const table = RouteTable.fromConfig({
    defaults: DEFAULT_SCOPE_MAPPINGS,
    scopeMappings: custom,
  })
  t.same(table.match('GET', '/agents/a1/special'), {
    template: '/agents/{id}/special',
    scopes: ['special:read'],
    source: 'custom',
  })
  const agentos = agentosMappings(DEFAULT_SCOPE_MAPPINGS, custom)
  t.same(agentosRequiredScopes(agentos, 'GET', '/agents/a1/special'), ['agents:read'])
  t.same(table.match('GET', '/agents/a1')?.scopes, ['agents:read'], 'the default still applies')
  t.same(table.match('GET', '/agents/a1/special/x')?.scopes, ['agents:read'])
})

void t.test('overriding an existing key replaces its scopes and keeps its shape', async (t) => {
  const custom = { 'GET /agents/{**}': ['agents:audit'], 'POST /agents/{agent_id}/runs': [] }
  const table = RouteTable.fromConfig({
    defaults: DEFAULT_SCOPE_MAPPINGS,
    scopeMappings: custom,
  })
  for (const path of ['/agents/a1', '/agents/a1/runs/r1/checkpoints/3']) {
    t.same(table.match('GET', path), {
      template: '/agents/{**}',
      scopes: ['agents:audit'],
      source: 'custom',
    })
  }
  t.same(
    agentosRequiredScopes(
      agentosMappings(DEFAULT_SCOPE_MAPPINGS, { 'GET /agents/*': ['agents:audit'] }),
      'GET',
      '/agents/a1/runs/r1/checkpoints/3',
    ),
    ['agents:audit'],
    'the same outcome as AgentOS overriding "GET /agents/*"',
  )
  t.same(table.match('POST', '/agents/a1/runs'), {
    template: '/agents/{agent_id}/runs',
    scopes: [],
    source: 'custom',
  })
  t.equal(table.entries.length, DEFAULT_SCOPE_MAPPINGS.length, 'no rule was added')
  t.same(table.entries[3], {
    method: 'GET',
    template: '/agents/{**}',
    scopes: ['agents:audit'],
    source: 'custom',
  })
})

void t.test('templates with the same specificity are one key, the last one wins', async (t) => {
  const table = new RouteTable([
    rule('GET', '/a/{x}', ['first']),
    rule('GET', '/a/{y}', ['second']),
    rule('GET', '/a/*', ['third']),
    rule('GET', '/b/**', ['fourth']),
    rule('GET', '/b/{**}', ['fifth']),
  ])
  t.same(table.match('GET', '/a/1')?.scopes, ['third'])
  t.same(table.match('GET', '/b/1/2')?.scopes, ['fifth'])
  t.equal(table.entries.length, 2)
})

void t.test('[] means allowed with no scopes, distinct from no mapping', async (t) => {
  const table = RouteTable.fromConfig({
    defaults: DEFAULT_SCOPE_MAPPINGS,
    scopeMappings: { 'GET /test': [] },
  })
  t.same(table.match('GET', '/test'), { template: '/test', scopes: [], source: 'custom' })
  t.equal(table.match('GET', '/other'), undefined)
})

void t.test('interface mappings come after defaults and before scope_mappings', async (t) => {
  const table = RouteTable.fromConfig({
    defaults: DEFAULT_SCOPE_MAPPINGS,
    scopeMappings: { 'POST /agui': ['teams:run'] },
    interfaceMappings: [
      { method: 'POST', template: '/agui', scopes: ['agents:run'], source: 'interface' },
      { method: 'GET', template: '/a2a/agents/*/x', scopes: ['agents:read'], source: 'interface' },
    ],
  })
  t.same(table.match('POST', '/agui'), {
    template: '/agui',
    scopes: ['teams:run'],
    source: 'custom',
  })
  t.equal(table.match('GET', '/a2a/agents/a1/x')?.source, 'interface')
})
