import fc from 'fast-check'
import t from 'tap'
import { SCOPE_MAPPINGS_2_9 } from '../../../src/policy/catalogue/agentos-2.9.js'
import { RouteTable, type RouteEntry } from '../../../src/policy/route-table.js'
import { agentosMappings, agentosRequiredScopes, fnmatch } from './agentos-matcher.js'
import { AGENTOS_ROUTES, ROUTE_SHAPES } from './agentos-routes.js'

const DEFAULT_SCOPE_MAPPINGS = SCOPE_MAPPINGS_2_9
const portcullis = RouteTable.fromConfig({ defaults: DEFAULT_SCOPE_MAPPINGS, scopeMappings: null })
const agentos = agentosMappings(DEFAULT_SCOPE_MAPPINGS)

/** Unmapped and `[]` are the same outcome for AgentOS: no scopes required. */
function portcullisScopes(table: RouteTable, method: string, path: string): readonly string[] {
  return table.match(method, path)?.scopes ?? []
}

void t.test('the reference fnmatch model behaves as Python fnmatch', async (t) => {
  t.ok(fnmatch('/agents/a/runs/r/checkpoints/3', '/agents/*'))
  t.ok(fnmatch('/agents/a/b/runs', '/agents/*/runs'))
  t.notOk(fnmatch('/agents', '/agents/*'))
  t.ok(fnmatch('/agents/', '/agents/*'))
  t.notOk(fnmatch('/agents/a1/runs/r1/resume', '/agents/*/runs'))
  t.ok(fnmatch('/a1', '/a?'))
  t.ok(fnmatch('/ab', '/a[bc]'))
  t.notOk(fnmatch('/ab', '/a[!bc]'))
  t.ok(fnmatch('/a[', '/a['))
  t.notOk(fnmatch('/Agents', '/agents'))
  t.ok(fnmatch('/v1/message:send', '/v1/message:send'))
})

void t.test('identical required scopes on every real AgentOS route', async (t) => {
  for (const [method, path] of AGENTOS_ROUTES) {
    t.same(
      portcullisScopes(portcullis, method, path),
      agentosRequiredScopes(agentos, method, path),
      `${method} ${path}`,
    )
  }
})

void t.test('identical required scopes on real route shapes with any ids', async (t) => {
  const id = fc.stringMatching(/^[A-Za-z0-9_~-][A-Za-z0-9._~-]{0,11}$/)
  const request = fc
    .tuple(fc.constantFrom(...ROUTE_SHAPES), fc.array(id, { minLength: 3, maxLength: 3 }))
    .map(([[method, shape], ids]) => {
      let n = 0
      return [method, shape.replaceAll('{}', () => ids[n++] ?? 'x')] as const
    })
  fc.assert(
    fc.property(request, ([method, path]) => {
      const ours = portcullisScopes(portcullis, method, path)
      const theirs = agentosRequiredScopes(agentos, method, path)
      return JSON.stringify(ours) === JSON.stringify(theirs)
    }),
    { numRuns: 2000 },
  )
  t.pass('2000 generated requests agree')
})

const A2A_PATTERNS: readonly (readonly [string, string, readonly string[]])[] = [
  ['GET', '/agents/*/.well-known/agent-card.json', ['agents:read']],
  ['POST', '/agents/*/v1/message:send', ['agents:run']],
  ['POST', '/agents/*/v1/message:stream', ['agents:run']],
  ['POST', '/agents/*/v1/tasks:get', ['agents:read']],
  ['POST', '/agents/*/v1/tasks:cancel', ['agents:run']],
  ['GET', '/teams/*/.well-known/agent-card.json', ['teams:read']],
  ['POST', '/teams/*/v1/message:send', ['teams:run']],
  ['POST', '/workflows/*/v1/message:stream', ['workflows:run']],
  ['POST', '/message/send', ['agents:run']],
  ['POST', '/message/stream', ['agents:run']],
]

void t.test('identical outcomes with A2A interface mappings, prefix /a2a and ""', async (t) => {
  for (const prefix of ['/a2a', '']) {
    const entries = A2A_PATTERNS.map(
      ([method, pattern, scopes]) => [method, `${prefix}${pattern}`, scopes] as const,
    )
    const ours = RouteTable.fromConfig({
      defaults: DEFAULT_SCOPE_MAPPINGS,
      scopeMappings: null,
      interfaceMappings: entries.map(([method, template, scopes]): RouteEntry => ({
        method,
        template,
        scopes,
        source: 'interface',
      })),
    })
    const theirs = agentosMappings([...DEFAULT_SCOPE_MAPPINGS, ...entries])
    for (const [method, pattern] of A2A_PATTERNS) {
      const path = `${prefix}${pattern.replace('*', 'x1')}`
      t.same(
        portcullisScopes(ours, method, path),
        agentosRequiredScopes(theirs, method, path),
        `${method} ${path}`,
      )
    }
    t.same(portcullisScopes(ours, 'GET', `${prefix}/status`), [])
  }
})
