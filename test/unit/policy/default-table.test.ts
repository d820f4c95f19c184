import t from 'tap'
import { SCOPE_MAPPINGS_2_9 } from '../../../src/policy/catalogue/agentos-2.9.js'
import { SCOPE_MAPPINGS_3_0 } from '../../../src/policy/catalogue/agentos-3.0.js'
import { agentosPatternToTemplate } from '../../../src/policy/catalogue/scope-patterns.js'
import { RouteTable } from '../../../src/policy/route-table.js'

const DEFAULT_SCOPE_MAPPINGS = SCOPE_MAPPINGS_2_9
const table = RouteTable.fromConfig({ defaults: SCOPE_MAPPINGS_2_9, scopeMappings: null })
const table30 = RouteTable.fromConfig({ defaults: SCOPE_MAPPINGS_3_0, scopeMappings: null })

/** A concrete path for an AgentOS pattern: each `*` becomes a distinct id. */
function concretePath(pattern: string): string {
  let n = 0
  return pattern.replaceAll('*', () => `id${++n}`)
}

void t.test('the table has all 103 entries of ROUTE-1, in order', async (t) => {
  t.equal(DEFAULT_SCOPE_MAPPINGS.length, 103)
  const at = (n: number) => DEFAULT_SCOPE_MAPPINGS[n - 1]
  t.same(at(1), ['GET', '/config', ['config:read']])
  t.same(at(4), ['GET', '/agents/*', ['agents:read']])
  t.same(at(32), ['DELETE', '/sessions', ['sessions:delete']])
  t.same(at(62), ['DELETE', '/eval-runs', ['evals:delete']])
  t.same(at(66), ['POST', '/service-accounts', ['service_accounts:write']])
  t.same(at(80), ['GET', '/approvals/count', ['approvals:read']])
  t.same(at(86), ['POST', '/databases/all/migrate', ['config:write']])
  t.same(at(90), ['GET', '/knowledge/*/sources/*/files', ['knowledge:read']])
  t.same(at(99), ['GET', '/components/*/configs/current', ['components:read']])
  t.same(at(103), ['POST', '/components/*/configs/*/set-current', ['components:write']])
  const keys = DEFAULT_SCOPE_MAPPINGS.map(([method, pattern]) => `${method} ${pattern}`)
  t.equal(new Set(keys).size, 103, 'no duplicate keys')
  t.notOk(keys.includes('DELETE /eval-runs/*'), 'DELETE /eval-runs/* is not mapped')
  t.notOk(keys.includes('GET /metrics/refresh/status'), 'GET /metrics/refresh/status is not mapped')
})

void t.test('the fnmatch → segment translation', async (t) => {
  t.equal(agentosPatternToTemplate('/config'), '/config')
  t.equal(agentosPatternToTemplate('/agents/*'), '/agents/{**}')
  t.equal(agentosPatternToTemplate('/agents/*/runs'), '/agents/*/runs')
  t.equal(agentosPatternToTemplate('/agents/*/runs/*/continue'), '/agents/*/runs/*/continue')
  t.equal(agentosPatternToTemplate('/schedules/*/runs/*'), '/schedules/*/runs/{**}')
  t.equal(agentosPatternToTemplate('/agents/{agent_id}'), '/agents/{**}')
  t.equal(agentosPatternToTemplate('/a/{x}/b'), '/a/*/b')
  t.throws(() => agentosPatternToTemplate('/reports/*.json'), { code: 'INTERNAL' })
})

void t.test('every one of the 103 entries resolves a concrete path to itself', async (t) => {
  for (const [index, [method, pattern, scopes]] of DEFAULT_SCOPE_MAPPINGS.entries()) {
    const path = concretePath(pattern)
    const match = table.match(method, path)
    t.same(
      match,
      { template: agentosPatternToTemplate(pattern), scopes, source: 'default' },
      `#${index + 1} ${method} ${path} → ${scopes.join(', ')}`,
    )
  }
})

void t.test('a trailing * covers deeper paths, as fnmatch does', async (t) => {
  t.same(table.match('GET', '/agents/a1/runs/r1/checkpoints/3')?.scopes, ['agents:read'])
  t.same(table.match('GET', '/knowledge/content/c1/status')?.scopes, ['knowledge:read'])
  t.same(table.match('DELETE', '/components/c/configs/1')?.scopes, ['components:delete'])
  t.equal(table.match('GET', '/agents/a1/runs')?.template, '/agents/{**}')
  t.equal(table.match('GET', '/metrics/refresh/status'), undefined)
  t.equal(table.match('DELETE', '/eval-runs/e1'), undefined)
  t.equal(table.match('HEAD', '/agents'), undefined)
  t.equal(table.match('PUT', '/agents/a1'), undefined)
})

void t.test(
  "3.0: 2.9's 103 entries and the two rules 3.0 added, where scopes.py puts them",
  async (t) => {
    t.equal(SCOPE_MAPPINGS_3_0.length, 105)
    const keys = SCOPE_MAPPINGS_3_0.map(([method, pattern]) => `${method} ${pattern}`)
    const refresh = keys.indexOf('POST /metrics/refresh')
    t.same(SCOPE_MAPPINGS_3_0[refresh + 1], ['GET', '/metrics/refresh/status', ['metrics:read']])
    const deleteComponent = keys.indexOf('DELETE /components/*')
    t.same(SCOPE_MAPPINGS_3_0[deleteComponent + 1], [
      'POST',
      '/components/*/restore',
      ['components:delete'],
    ])
    const added = new Set([refresh + 1, deleteComponent + 1])
    t.same(
      SCOPE_MAPPINGS_3_0.filter((_, index) => !added.has(index)),
      SCOPE_MAPPINGS_2_9,
      "every other entry is 2.9's, in its order",
    )
    t.ok(keys.includes('GET /models'), 'GET /models is still listed although 3.0 removed the route')
    for (const [method, pattern, scopes] of SCOPE_MAPPINGS_3_0) {
      t.same(table30.match(method, concretePath(pattern))?.scopes, scopes, `${method} ${pattern}`)
    }
    t.same(table.match('GET', '/metrics/refresh/status'), undefined, '2.9: unmapped')
    t.same(table.match('POST', '/components/c1/restore'), undefined, '2.9: unmapped')
  },
)
