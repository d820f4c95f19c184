import t from 'tap'
import { configSchema } from '../../../src/config/schema.js'
import { Grants } from '../../../src/policy/grants.js'
import { resourceContext } from '../../../src/policy/resource-context.js'
import { RouteTable } from '../../../src/policy/route-table.js'
import {
  a2aMappings,
  interfaceMappings,
  publicInterfaceRoutes,
} from '../../../src/surfaces/interface-routes.js'
import { ADMIN } from './helpers.js'

const interfaces = (input: Record<string, unknown> = {}) =>
  configSchema.parse({ interfaces: input }).interfaces

void t.test('A2A mappings of ROUTE-4', async (t) => {
  const entries = a2aMappings('/a2a')
  t.equal(entries.length, 15)
  t.same(entries[0], {
    method: 'GET',
    template: '/a2a/agents/{id}/.well-known/agent-card.json',
    scopes: ['agents:read'],
    source: 'interface',
  })
  t.notOk(
    entries.some(
      (entry) => entry.template.startsWith('/a2a/workflows/') && entry.template.includes('tasks'),
    ),
    'workflows have no task routes',
  )
  t.match(entries.at(-1), { template: '/a2a/message/stream', scopes: ['agents:run'] })
  t.equal(a2aMappings('')[1]?.template, '/agents/{id}/v1/message:send')
})

/** Whether `scopes` pass the route as the authorizer checks it. */
function allowed(table: RouteTable, scopes: string[], method: string, path: string): boolean {
  const required = table.match(method, path)?.scopes ?? []
  return new Grants(ADMIN).satisfiesAll(scopes, required, resourceContext(path))
}

void t.test('per-resource grants on /a2a and "", global ones on a custom prefix', async (t) => {
  for (const [prefix, perResource] of [
    ['/a2a', true],
    ['', true],
    ['/protocol', false],
    ['/api/a2a', false],
  ] as const) {
    const table = RouteTable.fromConfig({
      scopeMappings: null,
      interfaceMappings: interfaceMappings(interfaces({ a2a: { prefix } })),
    })
    const path = `${prefix}/agents/a1/v1/message:send`
    t.equal(allowed(table, ['agents:a1:run'], 'POST', path), perResource, `${path} specific`)
    t.ok(allowed(table, ['agents:*:run'], 'POST', path), `${path} wildcard`)
    t.ok(allowed(table, ['agents:run'], 'POST', path), `${path} global`)
    t.notOk(allowed(table, ['config:read'], 'POST', path), `${path} other`)
  }
})

void t.test('AG-UI endpoints and switches', async (t) => {
  t.same(interfaceMappings(interfaces({ a2a: { enabled: false } })), [
    { method: 'POST', template: '/agui', scopes: ['agents:run'], source: 'interface' },
  ])
  const team = interfaceMappings(
    interfaces({ a2a: { enabled: false }, agui: { endpoints: [{ prefix: '/t', bound: 'team' }] } }),
  )
  t.same(team, [
    { method: 'POST', template: '/t/agui', scopes: ['teams:run'], source: 'interface' },
  ])
})

void t.test('public routes: MCP discovery and webhook prefixes', async (t) => {
  const routes = publicInterfaceRoutes(
    interfaces({ webhooks: { prefixes: ['/slack', '/telegram'] } }),
  )
  t.ok(routes.includes('/.well-known/mcp/server-card.json'))
  t.ok(routes.includes('/.well-known/oauth-protected-resource/mcp'))
  t.ok(routes.includes('/slack/**'))
  t.ok(routes.includes('/telegram/**'))
  t.notOk(configSchema.safeParse({ interfaces: { webhooks: { prefixes: ['/slack/*'] } } }).success)
  t.notOk(configSchema.safeParse({ interfaces: { a2a: { prefix: '/a2a/' } } }).success)
})
