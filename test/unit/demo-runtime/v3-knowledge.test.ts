/** Knowledge content as an open AgentOS answers it: 3.0 stamps no owner (V3-KNOW-1). */
import t from 'tap'
import { call, form, startRuntime } from './helpers.js'

for (const line of ['2.9', '3.0'] as const) {
  void t.test(`knowledge content, ${line}`, async (t) => {
    const runtime = await startRuntime(t, { agentos: line })
    const uploaded = await call(
      runtime.url,
      'POST',
      '/knowledge/content',
      form({ name: 'notes', text_content: 'hello', user_id: 'mallory' }),
    )
    t.equal(uploaded.status, 202)
    const { id, user_id: owner } = uploaded.body as { id: string; user_id: unknown }
    t.equal(owner, line === '3.0' ? null : 'mallory', '3.0: no owner from a client field')
    const status = await call(runtime.url, 'GET', `/knowledge/content/${id}/status`)
    t.same(status.body, { id, status: 'processing', status_message: '' })
    const unknown = await call(runtime.url, 'GET', '/knowledge/content/nope/status')
    t.same(
      [unknown.status, unknown.body],
      [200, { id: 'nope', status: 'failed', status_message: 'Content not found' }],
    )
    const missing = await call(runtime.url, 'GET', '/knowledge/content/nope')
    t.same([missing.status, missing.body], [404, { detail: 'Content not found: nope' }])
    const patched = await call(runtime.url, 'PATCH', '/knowledge/content/nope', form({ name: 'x' }))
    t.same([patched.status, patched.body], [404, { detail: 'Content not found: nope' }])
    const gone = await call(runtime.url, 'DELETE', '/knowledge/content/nope')
    t.same([gone.status, gone.body], [200, { id: 'nope' }], 'a delete answers the id alone')
    t.same((await call(runtime.url, 'DELETE', `/knowledge/content/${id}`)).body, { id })
    t.equal((await call(runtime.url, 'GET', `/knowledge/content/${id}`)).status, 404)
    const all = await call(runtime.url, 'DELETE', '/knowledge/content')
    t.same([all.status, all.body], [200, 'success'])
  })
}
