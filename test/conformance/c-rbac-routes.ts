/**
 * Checklist part C, lines 59–76: run actions, route gates and the rest of the table (J), on the
 * AgentOS line of the test file (line.ts); 3.0's two new scope rules (V3-SCOPE-1) where they apply.
 */
import t from 'tap'
import {
  ADMIN,
  AGENTOS_ADMIN,
  K,
  forwarded,
  ids,
  ip,
  jConfig,
  jwt,
  refused,
  type CallOptions,
} from './fixtures.js'
import { lineRuntime, partLine, stackOnLine } from './line.js'

const line = partLine()
const runtime = await lineRuntime(t)
const J = await stackOnLine(t, runtime, jConfig())
const as = async (scopes: unknown, more: CallOptions = {}): Promise<CallOptions> => ({
  token: await jwt(scopes),
  ...more,
})
const post = async (path: string, scopes: unknown, form: Record<string, string> = {}) =>
  J.call('POST', path, await as(scopes, { form }))
const get = async (path: string, scopes: unknown) => J.call('GET', path, await as(scopes))

/**
 * 3.0 stores components (routers/components/): the component tests below find a real component
 * `x`, published at version 1, created by the admin; 2.9's demo answers them without a store.
 */
if (line === '3.0') {
  const created = await J.call('POST', '/components', {
    token: await jwt([ADMIN]),
    json: { name: 'x', component_id: 'x', component_type: 'agent', config: {}, stage: 'published' },
  })
  if (created.status !== 201) throw new Error(`setup: POST /components answered ${created.status}`)
}

void t.test(
  'SCOPE-3 cancel: agents:a1:run on a1 → 200; on /agents/a2/… → 403; agents:a1:read → 403',
  async (t) => {
    forwarded(t, await post('/agents/a1/runs/r/cancel', ['agents:a1:run']), 200)
    refused(t, await post('/agents/a2/runs/r/cancel', ['agents:a1:run']), 403, ip('agents:run'))
    refused(t, await post('/agents/a1/runs/r/cancel', ['agents:a1:read']), 403, ip('agents:run'))
  },
)

void t.test(
  'SCOPE-3 cancel on agents/a1, teams/t1, workflows/w1 as admin → 200 (the body is the upstream’s; AgentOS says {})',
  async (t) => {
    for (const base of ['/agents/a1', '/teams/t1', '/workflows/w1']) {
      const reply = await post(`${base}/runs/x/cancel`, [ADMIN])
      forwarded(t, reply, 200, `${base}/runs/x/cancel`)
    }
  },
)

void t.test(
  'SCOPE-3 continue (form tools=[]): agents:a1:run → not 403; the same on a2 → 403',
  async (t) => {
    const mine = await post('/agents/a1/runs/r/continue', ['agents:a1:run'], { tools: '[]' })
    forwarded(t, mine, 200, '/agents/a1/runs/r/continue')
    t.same(mine.upstream?.form?.tools, ['[]'])
    const other = await post('/agents/a2/runs/r/continue', ['agents:a1:run'], { tools: '[]' })
    refused(t, other, 403, ip('agents:run'))
  },
)

void t.test(
  'RBAC-3 GET /agents/a1/runs: agents:a1:read → 403 "Access denied to run this agent"; agents:a1:run → 403ip(agents:read)',
  async (t) => {
    const readOnly = await get('/agents/a1/runs', ['agents:a1:read'])
    refused(t, readOnly, 403, 'Access denied to run this agent')
    refused(t, await get('/agents/a1/runs', ['agents:a1:run']), 403, ip('agents:read'))
    forwarded(t, await get('/agents/a1/runs', ['agents:a1:read', 'agents:a1:run']), 200)
  },
)

void t.test(
  'RBAC-3 POST /agents/a1/runs/r/resume JWT([]) → 403 "Access denied to run this agent"',
  async (t) => {
    refused(t, await post('/agents/a1/runs/r/resume', []), 403, 'Access denied to run this agent')
    forwarded(t, await post('/agents/a1/runs/r/resume', ['agents:a1:run']), 200)
  },
)

void t.test(
  'RBAC-3 POST /agents/a1/sessions/s1/fork JWT([]) → 403 "Access denied to run this agent"',
  async (t) => {
    refused(
      t,
      await post('/agents/a1/sessions/s1/fork', []),
      403,
      'Access denied to run this agent',
    )
    forwarded(t, await post('/agents/a1/sessions/s1/fork', ['agents:run']), 200)
  },
)

if (line === '2.9') {
  void t.test(
    'ROUTE-1 JWT([]): GET /metrics/refresh/status → 200; GET /metrics → 403ip(metrics:read)',
    async (t) => {
      forwarded(t, await get('/metrics/refresh/status', []), 200, '/metrics/refresh/status')
      refused(t, await get('/metrics', []), 403, ip('metrics:read'))
    },
  )
} else {
  void t.test(
    'V3-SCOPE-1 GET /metrics/refresh/status: JWT([]) → 403ip(metrics:read), metrics:read → 200; GET /metrics as before',
    async (t) => {
      refused(t, await get('/metrics/refresh/status', []), 403, ip('metrics:read'))
      refused(t, await get('/metrics/refresh/status', ['metrics:write']), 403, ip('metrics:read'))
      forwarded(
        t,
        await get('/metrics/refresh/status', ['metrics:read']),
        200,
        '/metrics/refresh/status',
      )
      refused(t, await get('/metrics', []), 403, ip('metrics:read'))
    },
  )
}

void t.test('ROUTE-1 GET /config: config:read → 200; system:read → 200', async (t) => {
  forwarded(t, await get('/config', ['config:read']), 200, '/config')
  forwarded(t, await get('/config', ['system:read']), 200, '/config')
})

void t.test(
  'ROUTE-1 GET /registry: registry:read → 200; config:read, system:read → 403',
  async (t) => {
    forwarded(t, await get('/registry', ['registry:read']), 200, '/registry')
    refused(t, await get('/registry', ['config:read']), 403, ip('registry:read'))
    refused(t, await get('/registry', ['system:read']), 403, ip('registry:read'))
  },
)

const COMPONENT_READS = [
  '/components',
  '/components/x',
  '/components/x/configs',
  '/components/x/configs/1',
  '/components/x/configs/current',
]

void t.test(
  'ROUTE-1 component reads: [] → 403; agents:read → 403; components:read → not 403',
  async (t) => {
    for (const path of COMPONENT_READS) {
      refused(t, await get(path, []), 403, ip('components:read'))
      refused(t, await get(path, ['agents:read']), 403, ip('components:read'))
      forwarded(t, await get(path, ['components:read']), 200, path)
    }
  },
)

/** Method, path, body and the upstream's answer once authorized. */
type ComponentCall = [string, string, unknown, number]

const COMPONENT_WRITES: ComponentCall[] =
  line === '2.9'
    ? [
        ['POST', '/components', {}, 200],
        ['PATCH', '/components/x', {}, 200],
        ['POST', '/components/x/configs', {}, 200],
        ['PATCH', '/components/x/configs/1', {}, 200],
        ['POST', '/components/x/configs/1/set-current', {}, 200],
      ]
    : [
        ['POST', '/components', { name: 'y', component_type: 'agent' }, 201],
        ['PATCH', '/components/x', { description: 'renamed' }, 200],
        ['POST', '/components/x/configs', { config: {} }, 201],
        ['PATCH', '/components/x/configs/2', { notes: 'draft' }, 200],
        ['POST', '/components/x/configs/1/set-current', {}, 200],
      ]

void t.test(
  'ROUTE-1 component writes: components:read, components:delete → 403; components:write → not 403',
  async (t) => {
    for (const [method, path, json, status] of COMPONENT_WRITES) {
      const send = async (scope: string) => J.call(method, path, await as([scope], { json }))
      refused(t, await send('components:read'), 403, ip('components:write'))
      refused(t, await send('components:delete'), 403, ip('components:write'))
      forwarded(t, await send('components:write'), status, path)
    }
  },
)

const COMPONENT_DELETES: [string, number][] =
  line === '2.9'
    ? [
        ['/components/x', 200],
        ['/components/x/configs/1', 200],
      ]
    : [
        ['/components/x/configs/2', 204],
        ['/components/x', 204],
      ]

void t.test(
  'ROUTE-1 component deletes: components:read, components:write → 403; components:delete → not 403',
  async (t) => {
    for (const [path, status] of COMPONENT_DELETES) {
      const send = async (scope: string) => J.call('DELETE', path, await as([scope]))
      refused(t, await send('components:read'), 403, ip('components:delete'))
      refused(t, await send('components:write'), 403, ip('components:delete'))
      forwarded(t, await send('components:delete'), status, path)
    }
  },
)

if (line === '3.0') {
  void t.test(
    'V3-SCOPE-1 POST /components/x/restore (archived above): components:read, components:write → 403ip(components:delete); components:delete → 200',
    async (t) => {
      const send = async (scope: string) =>
        J.call('POST', '/components/x/restore', await as([scope]))
      refused(t, await send('components:read'), 403, ip('components:delete'))
      refused(t, await send('components:write'), 403, ip('components:delete'))
      const restored = await send('components:delete')
      forwarded(t, restored, 200, '/components/x/restore')
      t.match(restored.body, { component_id: 'x', current_version: 1 })
    },
  )
}

void t.test(
  'ROUTE-1 GET /traces, /trace_session_stats: traces:read → 200, [] → 403; /traces/nonexistent is forwarded (its 404 is the upstream’s; the demo has no trace store)',
  async (t) => {
    for (const path of ['/traces', '/trace_session_stats']) {
      forwarded(t, await get(path, ['traces:read']), 200, path)
      refused(t, await get(path, []), 403, ip('traces:read'))
    }
    const one = await get('/traces/nonexistent', ['traces:read'])
    t.equal(one.upstream?.path, '/traces/nonexistent', 'authorized and forwarded')
    t.not(one.status, 403)
  },
)

void t.test(
  'SCOPE-3 GET /knowledge/content/agents-x JWT(agents:read) → 403ip(knowledge:read)',
  async (t) => {
    refused(t, await get('/knowledge/content/agents-x', ['agents:read']), 403, ip('knowledge:read'))
  },
)

void t.test('ROUTE-1 GET /sessions JWT(teams:read) → 403ip(sessions:read)', async (t) => {
  refused(t, await get('/sessions', ['teams:read']), 403, ip('sessions:read'))
})

void t.test(
  `RBAC-1 admin scope ${ADMIN}: JWT(${ADMIN}) GET /agents → 200; JWT(${AGENTOS_ADMIN}) → 403ip(agents:read)`,
  async (t) => {
    const admin = await get('/agents', [ADMIN])
    forwarded(t, admin, 200)
    t.same(ids(admin.body), ['a1', 'a2'])
    refused(t, await get('/agents', [AGENTOS_ADMIN]), 403, ip('agents:read'))
  },
)

void t.test(
  'ROUTE-3 scope_mappings {"GET /echo/test": []} (the demo’s catch-all for AgentOS’s /test) → JWT([]) 200, and authorization is implicitly on',
  async (t) => {
    const custom = await stackOnLine(
      t,
      runtime,
      jConfig({ authorization: null, scope_mappings: { 'GET /echo/test': [] } }),
    )
    forwarded(t, await custom.call('GET', '/echo/test', await as([])), 200, '/echo/test')
    refused(t, await custom.call('GET', '/agents', await as([])), 403, ip('agents:read'))
  },
)

void t.test(
  'AUTH-8 JWT_VERIFICATION_KEY without authorization (RBAC off): JWT([]) GET /agents → 200 all; GET /sessions → 200',
  async (t) => {
    const env = await stackOnLine(
      t,
      runtime,
      { auth: { algorithm: 'HS256' }, service_accounts: { enabled: false } },
      { JWT_VERIFICATION_KEY: K },
    )
    const agents = await env.call('GET', '/agents', await as([]))
    forwarded(t, agents, 200)
    t.same(ids(agents.body), ['a1', 'a2'])
    forwarded(t, await env.call('GET', '/sessions', await as([])), 200, '/sessions')
  },
)

void t.test(
  'HEAD (HEAD-1, unmapped in AgentOS) is authorized with the scopes of its GET',
  async (t) => {
    const head = async (path: string, scopes: unknown) => J.call('HEAD', path, await as(scopes))
    const denied = await head('/sessions', ['agents:read'])
    t.equal(denied.status, 403, 'without sessions:read')
    t.equal(denied.upstream, undefined, 'the upstream saw nothing')
    const perResource = await head('/agents/a1', ['agents:a2:read'])
    t.same([perResource.status, perResource.upstream], [403, undefined], 'another agent')
    // The upstream, like AgentOS, has no HEAD routes: its 405 comes back.
    forwarded(t, await head('/sessions', ['sessions:read']), 405)
    forwarded(t, await head('/agents/a1', ['agents:a1:read']), 405)
  },
)
