/** The demo runtime's two AgentOS lines: what tells them apart, and the routes 3.0 removed. */
import t from 'tap'
import { Child, tsxArgs } from '../../helpers/child-process.js'
import { call, form, startRuntime } from './helpers.js'

interface OpenApi {
  paths: Record<string, Record<string, unknown>>
}

void t.test('/ and /info of 3.0.0a3; /info of 2.9.0 carries agno_version', async (t) => {
  const v3 = await startRuntime(t, { agentos: '3.0' })
  t.same((await call(v3.url, 'GET', '/')).body, {
    name: 'AgentOS',
    health: '/health',
    info: '/info',
    docs: '/docs',
  })
  t.match((await call(v3.url, 'GET', '/info')).body, {
    os_id: 'demo-os',
    auth_mode: 'none',
    agno_version: '3.0.0a3',
    os_version: '1.0.0',
  })
  const v29 = await startRuntime(t)
  t.match((await call(v29.url, 'GET', '/')).body, { os_id: 'demo-os', version: '2.9.0-demo' })
  const info = (await call(v29.url, 'GET', '/info')).body as Record<string, unknown>
  t.match(info, { auth_mode: 'none', version: '2.9.0-demo', agno_version: '2.9.0' })
  t.notOk('os_version' in info, '2.9 has no os_version')
})

void t.test('agnoVersion overrides what /info reports on either line', async (t) => {
  const fromSource = await startRuntime(t, { agentos: '3.0', agnoVersion: '0.0.0' })
  t.match((await call(fromSource.url, 'GET', '/info')).body, {
    agno_version: '0.0.0',
    os_version: '1.0.0',
  })
  const newer = await startRuntime(t, { agnoVersion: '3.1.0' })
  t.match((await call(newer.url, 'GET', '/info')).body, { agno_version: '3.1.0' })
})

void t.test('/openapi.json lists the routes of each line, FastAPI style', async (t) => {
  const v3 = (await call((await startRuntime(t, { agentos: '3.0' })).url, 'GET', '/openapi.json'))
    .body as OpenApi
  const v29 = (await call((await startRuntime(t)).url, 'GET', '/openapi.json')).body as OpenApi
  t.ok(v3.paths['/agents/{agent_id}/runs']?.['post'], 'methods in lower case')
  t.ok(v3.paths['/sessions/{session_id}/media/{storage_key}']?.['get'], 'a path parameter')
  for (const path of ['/components/{component_id}/restore', '/queue/jobs', '/queue/stats']) {
    t.ok(v3.paths[path], `3.0 has ${path}`)
    t.notOk(v29.paths[path], `2.9 has no ${path}`)
  }
  t.ok(v3.paths['/metrics/refresh/status']?.['get'])
  t.ok(v29.paths['/models']?.['get'])
  t.notOk(v3.paths['/models'], '3.0 removed /models')
  t.ok(v29.paths['/a2a/message/send']?.['post'])
  t.notOk(v3.paths['/a2a/message/send'], '3.0 removed the deprecated A2A dispatch')
  t.same(v29.paths['/schedules/{schedule_id}'], v3.paths['/schedules/{schedule_id}'])
})

void t.test('3.0 removed /models and the deprecated A2A dispatch; 2.9 keeps them', async (t) => {
  const v3 = await startRuntime(t, { agentos: '3.0' })
  const v29 = await startRuntime(t)
  const models = await call(v3.url, 'GET', '/models')
  t.equal(models.status, 404)
  t.same(models.body, { detail: 'Not Found' })
  t.equal((await call(v29.url, 'GET', '/models')).status, 200)
  const message = { jsonrpc: '2.0', id: 1, params: { message: { parts: [{ text: 'hi' }] } } }
  for (const prefix of ['/a2a', '/protocol', '']) {
    for (const path of ['message/send', 'message/stream']) {
      const gone = await call(v3.url, 'POST', `${prefix}/${path}`, message, { 'x-agent-id': 'a1' })
      t.equal(gone.status, 404, `3.0: ${prefix}/${path}`)
      t.same(gone.body, { detail: 'Not Found' })
    }
  }
  const kept = await call(v29.url, 'POST', '/a2a/message/send', message, { 'x-agent-id': 'a1' })
  t.equal(kept.status, 200, '2.9 still dispatches by X-Agent-ID')
  const card = await call(v3.url, 'GET', '/a2a/agents/a1/.well-known/agent-card.json')
  t.equal(card.status, 200, 'the A2A interface itself stays')
})

void t.test('3.0 metrics refresh routes answer JSON', async (t) => {
  const v3 = await startRuntime(t, { agentos: '3.0' })
  const refresh = await call(v3.url, 'POST', '/metrics/refresh')
  t.equal(refresh.status, 200)
  const status = await call(v3.url, 'GET', '/metrics/refresh/status?user_id=u1')
  t.equal(status.status, 200)
  t.match(status.body, { route: 'GET /metrics/refresh/status', user_id: 'u1' })
})

void t.test('3.0 run routes accept Idempotency-Key and ignore X-Schedule-Owner', async (t) => {
  const v3 = await startRuntime(t, { agentos: '3.0' })
  const headers = { 'idempotency-key': 'key-1', 'x-schedule-owner': 'mallory' }
  const run = await call(
    v3.url,
    'POST',
    '/agents/a1/runs',
    form({ message: 'x', user_id: 'u1' }),
    headers,
  )
  t.equal(run.status, 200)
  t.match(run.body, { user_id: 'u1', idempotency_key: 'key-1', version: null })
  t.equal(v3.requests.at(-1)?.headers['idempotency-key'], 'key-1', 'recorded as received')
  const plain = await call(v3.url, 'POST', '/teams/t1/runs', form({ message: 'x' }))
  t.match(plain.body, { team_id: 't1', user_id: null, idempotency_key: null })
  const v29 = await startRuntime(t)
  const old = await call(v29.url, 'POST', '/agents/a1/runs', form({ message: 'x' }), headers)
  t.notOk('idempotency_key' in (old.body as object), 'the 2.9 run answer is unchanged')
})

void t.test('the CLI starts either line', async (t) => {
  const args = ['demo/runtime/main.ts', '--port', '0', '--agentos', '3.0']
  const child = new Child(t, tsxArgs(...args, '--agno-version', '0.0.0'))
  const line = await child.line((text) => text.includes('listening on'), 'the listening line')
  const url = /(http:\/\/\S+)/.exec(line)?.[1] ?? ''
  t.match(line, 'AgentOS 3.0 demo runtime')
  t.match((await call(url, 'GET', '/info')).body, { agno_version: '0.0.0', os_version: '1.0.0' })
  child.process.kill('SIGTERM')
  t.equal((await child.exit()).code, 0)
  const refused = new Child(t, tsxArgs('demo/runtime/main.ts', '--agentos', '4.0'))
  t.equal((await refused.exit()).code, 2)
  t.match(refused.stderr.join('\n'), '--agentos must be 2.9 or 3.0, got 4.0')
})
