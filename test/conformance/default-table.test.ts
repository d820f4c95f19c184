/**
 * ROUTE-1, all 103 default route → scope mappings, through the real gateway: without scopes
 * each route is a 403 naming its scopes and the upstream hears nothing; with exactly those scopes
 * it is authorized and forwarded. The table below is transcribed from the reference, independently
 * of src/policy/default-scope-mappings.ts.
 */
import t from 'tap'
import { startRuntime } from '../helpers/runtime.js'
import { ip, jConfig, jwt, refused, stack } from './fixtures.js'

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

const ROWS = REFERENCE_1_1.trim()
  .split('\n')
  .map((line) => {
    const [method = '', pattern = '', scopes = ''] = line.trim().split(' ')
    return { method, pattern, scopes: scopes.split(',') }
  })

/** A concrete path: each `*` becomes its own id. */
function concrete(pattern: string): string {
  let n = 0
  return pattern.replaceAll('*', () => `x${++n}`)
}

const runtime = await startRuntime(t)
const J = await stack(t, runtime, jConfig())
const none = await jwt([])

void t.test('the reference table has 103 entries', async (t) => {
  t.equal(ROWS.length, 103)
})

for (const [index, { method, pattern, scopes }] of ROWS.entries()) {
  const path = concrete(pattern)
  void t.test(`1.1 #${index + 1} ${method} ${pattern} → ${scopes.join(', ')}`, async (t) => {
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
