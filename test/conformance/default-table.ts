/**
 * ROUTE-1, every default route → scope mapping of the AgentOS line of the test file (line.ts),
 * through the real gateway: without scopes each route is a 403 naming its scopes and the upstream
 * hears nothing; with exactly those scopes it is authorized and forwarded. 2.9.0's 103 entries are
 * transcribed from the reference; 3.0.0a3's are those and the two `scopes.py` added (V3-SCOPE-1),
 * independently of src/policy/catalogue/.
 */
import t from 'tap'
import { ip, jConfig, jwt, refused } from './fixtures.js'
import { lineRuntime, partLine, stackOnLine } from './line.js'

// "<METHOD> <AgentOS pattern> <scopes, comma-separated>", in the reference's order.
const REFERENCE_1_1 = `
  GET /config config:read
  GET /models config:read
  GET /agents agents:read
  GET /agents/* agents:read
  POST /agents agents:write
  PATCH /agents/* agents:write
  DELETE /agents/* agents:delete
  POST /agents/*/runs agents:run
  POST /agents/*/runs/*/continue agents:run
  POST /agents/*/runs/*/cancel agents:run
  GET /teams teams:read
  GET /teams/* teams:read
  POST /teams teams:write
  PATCH /teams/* teams:write
  DELETE /teams/* teams:delete
  POST /teams/*/runs teams:run
  POST /teams/*/runs/*/continue teams:run
  POST /teams/*/runs/*/cancel teams:run
  GET /workflows workflows:read
  GET /workflows/* workflows:read
  POST /workflows workflows:write
  PATCH /workflows/* workflows:write
  DELETE /workflows/* workflows:delete
  POST /workflows/*/runs workflows:run
  POST /workflows/*/runs/*/continue workflows:run
  POST /workflows/*/runs/*/cancel workflows:run
  GET /sessions sessions:read
  GET /sessions/* sessions:read
  POST /sessions sessions:write
  POST /sessions/*/rename sessions:write
  PATCH /sessions/* sessions:write
  DELETE /sessions sessions:delete
  DELETE /sessions/* sessions:delete
  GET /memories memories:read
  GET /memories/* memories:read
  GET /memory_topics memories:read
  GET /user_memory_stats memories:read
  POST /memories memories:write
  PATCH /memories/* memories:write
  DELETE /memories memories:delete
  DELETE /memories/* memories:delete
  POST /optimize-memories memories:write
  GET /learnings learnings:read
  GET /learnings/* learnings:read
  POST /learnings learnings:write
  PATCH /learnings/* learnings:write
  DELETE /learnings/* learnings:delete
  GET /knowledge/content knowledge:read
  GET /knowledge/content/* knowledge:read
  GET /knowledge/config knowledge:read
  POST /knowledge/content knowledge:write
  PATCH /knowledge/content/* knowledge:write
  POST /knowledge/search knowledge:read
  DELETE /knowledge/content knowledge:delete
  DELETE /knowledge/content/* knowledge:delete
  GET /metrics metrics:read
  POST /metrics/refresh metrics:write
  GET /eval-runs evals:read
  GET /eval-runs/* evals:read
  POST /eval-runs evals:write
  PATCH /eval-runs/* evals:write
  DELETE /eval-runs evals:delete
  GET /traces traces:read
  GET /traces/* traces:read
  GET /trace_session_stats traces:read
  POST /service-accounts service_accounts:write
  GET /service-accounts service_accounts:read
  DELETE /service-accounts/* service_accounts:delete
  GET /schedules schedules:read
  GET /schedules/* schedules:read
  POST /schedules schedules:write
  PATCH /schedules/* schedules:write
  DELETE /schedules/* schedules:delete
  POST /schedules/*/enable schedules:write
  POST /schedules/*/disable schedules:write
  POST /schedules/*/trigger schedules:write
  GET /schedules/*/runs schedules:read
  GET /schedules/*/runs/* schedules:read
  GET /approvals approvals:read
  GET /approvals/count approvals:read
  GET /approvals/* approvals:read
  GET /approvals/*/status approvals:read
  POST /approvals/*/resolve approvals:write
  DELETE /approvals/* approvals:delete
  POST /traces/search traces:read
  POST /databases/all/migrate config:write
  POST /databases/*/migrate config:write
  POST /knowledge/remote-content knowledge:write
  GET /knowledge/*/sources knowledge:read
  GET /knowledge/*/sources/*/files knowledge:read
  GET /registry registry:read
  GET /components components:read
  GET /components/* components:read
  POST /components components:write
  PATCH /components/* components:write
  DELETE /components/* components:delete
  GET /components/*/configs components:read
  GET /components/*/configs/* components:read
  GET /components/*/configs/current components:read
  POST /components/*/configs components:write
  PATCH /components/*/configs/* components:write
  DELETE /components/*/configs/* components:delete
  POST /components/*/configs/*/set-current components:write
`

/** 3.0.0a3's `scopes.py`: the rule added after each 2.9 entry (V3-SCOPE-1); `GET /models` stays. */
const ADDED_IN_3_0: Record<string, string> = {
  'POST /metrics/refresh metrics:write': 'GET /metrics/refresh/status metrics:read',
  'DELETE /components/* components:delete': 'POST /components/*/restore components:delete',
}

const line = partLine()
const TABLE = REFERENCE_1_1.trim()
  .split('\n')
  .map((row) => row.trim())
  .flatMap((row) => {
    const added = ADDED_IN_3_0[row]
    return line === '3.0' && added !== undefined ? [row, added] : [row]
  })
const ROWS = TABLE.map((row) => {
  const [method = '', pattern = '', scopes = ''] = row.split(' ')
  return { method, pattern, scopes: scopes.split(',') }
})

/** A concrete path: each `*` becomes its own id. */
function concrete(pattern: string): string {
  let n = 0
  return pattern.replaceAll('*', () => `x${++n}`)
}

const runtime = await lineRuntime(t)
const J = await stackOnLine(t, runtime, jConfig())
const none = await jwt([])

void t.test(`the ${line} table has ${line === '2.9' ? 103 : 105} entries`, async (t) => {
  t.equal(ROWS.length, line === '2.9' ? 103 : 105)
  if (line === '3.0') {
    const at = (row: string) => TABLE.indexOf(row) + 1
    t.equal(at('GET /metrics/refresh/status metrics:read'), 58, 'after POST /metrics/refresh')
    t.equal(at('POST /components/*/restore components:delete'), 98, 'after DELETE /components/*')
  }
})

for (const [index, { method, pattern, scopes }] of ROWS.entries()) {
  const path = concrete(pattern)
  const name = line === '2.9' ? '1.1' : 'ROUTE-1 3.0'
  void t.test(`${name} #${index + 1} ${method} ${pattern} → ${scopes.join(', ')}`, async (t) => {
    refused(t, await J.call(method, path, { token: none }), 403, ip(scopes.join(', ')))
    const granted = await J.call(method, path, { token: await jwt(scopes) })
    t.not(granted.status, 401)
    t.not(granted.status, 403, `authorized (${granted.text.slice(0, 80)})`)
    if (path.startsWith('/service-accounts')) {
      t.equal(granted.upstream, undefined, 'answered by the gateway itself')
    } else {
      t.equal(granted.upstream?.path, path, 'forwarded at the same path')
      t.equal(granted.upstream?.method, method)
    }
  })
}

if (line === '3.0') {
  void t.test(
    'V3-SCOPE-1 GET /models: still mapped to config:read, but the route is gone: the upstream answers 404 Not Found',
    async (t) => {
      const reply = await J.call('GET', '/models', { token: await jwt(['config:read']) })
      t.equal(reply.status, 404)
      t.equal(reply.detail, 'Not Found')
      t.equal(reply.upstream?.path, '/models', 'authorized and forwarded')
    },
  )
}
