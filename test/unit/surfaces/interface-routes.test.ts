import t from 'tap'
import { configSchema } from '../../../src/config/schema.js'
import type { AgentOsLine } from '../../../src/policy/catalogue/index.js'
import {
  RouteCatalogue,
  type InterfaceRoutes,
} from '../../../src/policy/catalogue/route-catalogue.js'
import { agentosCatalogue } from '../../../src/policy/catalogue/index.js'
import { Grants } from '../../../src/policy/grants.js'
import type { RouteEntry } from '../../../src/policy/route-table.js'
import { interfaceRoutes, publicInterfaceRoutes } from '../../../src/surfaces/interface-routes.js'
import { ADMIN } from './helpers.js'

const interfaces = (input: Record<string, unknown> = {}) =>
  configSchema.parse({ interfaces: input }).interfaces

function compiled(mounted: InterfaceRoutes, line: AgentOsLine = '2.9'): RouteCatalogue {
  return new RouteCatalogue({
    catalogue: agentosCatalogue(line),
    scopeMappings: null,
    interfaces: mounted,
  })
}

/** The scope mappings the mounted interfaces add (ROUTE-4). */
function interfaceMappings(mounted: InterfaceRoutes, line: AgentOsLine = '2.9'): RouteEntry[] {
  return compiled(mounted, line).scopes.entries.filter((entry) => entry.source === 'interface')
}

const a2aMappings = (prefix: string, line: AgentOsLine = '2.9') =>
  interfaceMappings({ a2aPrefix: prefix, aguiEndpoints: [], mcpPath: '/mcp' }, line)

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

void t.test('3.0 removed the deprecated dispatch, route and rule (V3-A2A-1)', async (t) => {
  const entries = a2aMappings('/a2a', '3.0')
  t.equal(entries.length, 13)
  t.notOk(entries.some((entry) => entry.template.startsWith('/a2a/message/')))
  const catalogue = compiled({ a2aPrefix: '/a2a', aguiEndpoints: [], mcpPath: '/mcp' }, '3.0')
  t.same(catalogue.match('POST', '/a2a/message/send').route, undefined)
  t.equal(
    compiled({ a2aPrefix: '/a2a', aguiEndpoints: [], mcpPath: '/mcp' }).match(
      'POST',
      '/a2a/message/send',
    ).route?.surface,
    'a2a',
    '2.9: the A2A surface checks the dispatch',
  )
})

void t.test('the A2A surface takes the message and task routes, with their facts', async (t) => {
  const catalogue = compiled({ a2aPrefix: '/a2a', aguiEndpoints: [], mcpPath: '/mcp' })
  const tasks = catalogue.match('POST', '/a2a/teams/t1/v1/tasks:get')
  t.equal(tasks.route?.surface, 'a2a')
  t.same(tasks.route?.resource, { family: 'teams', idIndex: 2 })
  t.same(tasks.route?.checks, [{ kind: 'a2a-task-ownership', operation: 'get' }])
  t.same(catalogue.match('POST', '/a2a/agents/a1/v1/tasks:cancel').route?.checks, [
    { kind: 'a2a-task-ownership', operation: 'cancel' },
  ])
  t.same(catalogue.match('POST', '/a2a/message/stream').route?.checks, [{ kind: 'a2a-dispatch' }])
  t.equal(catalogue.match('GET', '/a2a/agents/a1/.well-known/agent-card.json').route, undefined)
  t.equal(catalogue.match('POST', '/a2ax/agents/a1/v1/message:send').route, undefined)
  t.equal(catalogue.match('POST', '/a2a/gadgets/a1/v1/message:send').route, undefined)
  t.equal(catalogue.match('POST', '/agents/a1/v1/message:send').route, undefined)
  const root = compiled({ a2aPrefix: '', aguiEndpoints: [], mcpPath: '/mcp' })
  t.same(root.match('POST', '/agents/a1/v1/message:send').route?.resource, {
    family: 'agents',
    idIndex: 1,
  })
  t.same(root.match('POST', '/message/send').route?.checks, [{ kind: 'a2a-dispatch' }])
})

/** Whether `scopes` pass the route as the authorizer checks it. */
function allowed(
  catalogue: RouteCatalogue,
  scopes: string[],
  method: string,
  path: string,
): boolean {
  const matched = catalogue.match(method, path)
  return new Grants(ADMIN).satisfiesAll(scopes, matched.rule?.scopes ?? [], matched.context)
}

void t.test('per-resource grants on /a2a and "", global ones on a custom prefix', async (t) => {
  for (const [prefix, perResource] of [
    ['/a2a', true],
    ['', true],
    ['/protocol', false],
    ['/api/a2a', false],
  ] as const) {
    const table = compiled(interfaceRoutes(interfaces({ a2a: { prefix } })))
    const path = `${prefix}/agents/a1/v1/message:send`
    t.equal(allowed(table, ['agents:a1:run'], 'POST', path), perResource, `${path} specific`)
    t.ok(allowed(table, ['agents:*:run'], 'POST', path), `${path} wildcard`)
    t.ok(allowed(table, ['agents:run'], 'POST', path), `${path} global`)
    t.notOk(allowed(table, ['config:read'], 'POST', path), `${path} other`)
  }
})

void t.test('AG-UI endpoints and switches', async (t) => {
  t.same(interfaceMappings(interfaceRoutes(interfaces({ a2a: { enabled: false } }))), [
    { method: 'POST', template: '/agui', scopes: ['agents:run'], source: 'interface' },
  ])
  const team = interfaceMappings(
    interfaceRoutes(
      interfaces({
        a2a: { enabled: false },
        agui: { endpoints: [{ prefix: '/t', bound: 'team' }] },
      }),
    ),
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
