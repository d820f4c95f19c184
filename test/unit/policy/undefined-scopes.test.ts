import t from 'tap'
import {
  AGENTOS_LINES,
  agentosCatalogue,
  definedScopes,
} from '../../../src/policy/catalogue/index.js'
import { undefinedScopeWarnings } from '../../../src/policy/undefined-scopes.js'

void t.test('the warnings follow the list of known scopes they are given', async (t) => {
  const known = ['agents:read', 'agents:run', 'reports:read']
  t.same(undefinedScopeWarnings(['agents:run', 'reports:read', 'agents:a1:run'], known), [])
  t.same(undefinedScopeWarnings(['agents:rnu', 'reprots:read', 'agents:*:raed'], known), [
    'agents:rnu is not a scope AgentOS defines; did you mean agents:run?',
    'reprots:read is not a scope AgentOS defines; did you mean reports:read?',
    'agents:*:raed is not a scope AgentOS defines; did you mean agents:*:read?',
  ])
  t.same(undefinedScopeWarnings(['billing:export', 'reports:raed:x'], known), [
    'billing:export is not a scope AgentOS defines',
    'reports:raed:x is not a scope AgentOS defines',
  ])
  t.same(
    undefinedScopeWarnings(['bogus', 'a:b:c:d', 'os:admin'], known),
    [],
    'the admin scope, and scopes the API refuses anyway, get no warning',
  )
})

void t.test(
  "each line's defined scopes: its routes, the interfaces, scheduler and admin scopes",
  async (t) => {
    for (const line of AGENTOS_LINES) {
      const catalogue = agentosCatalogue(line)
      const scopes = definedScopes(catalogue)
      for (const [, , required] of catalogue.scopeMappings)
        for (const scope of required) t.ok(scopes.includes(scope), `${line}: ${scope}`)
      for (const scope of [
        'agents:run',
        'teams:read',
        'workflows:run',
        'os:admin',
        'agent_os:admin',
      ])
        t.ok(scopes.includes(scope), `${line}: ${scope}`)
    }
    const scopes = definedScopes(agentosCatalogue('2.9'))
    t.same(undefinedScopeWarnings(['system:read', 'service_accounts:delete'], scopes), [])
    t.same(undefinedScopeWarnings(['agents:wrte', 'agnets:run', 'reports:read'], scopes), [
      'agents:wrte is not a scope AgentOS defines; did you mean agents:write?',
      'agnets:run is not a scope AgentOS defines; did you mean agents:run?',
      'reports:read is not a scope AgentOS defines',
    ])
  },
)
