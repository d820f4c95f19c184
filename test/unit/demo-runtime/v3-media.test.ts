/** The 3.0 session media route of the demo runtime (local media storage). */
import t from 'tap'
import type { AgentRuntime } from '../../../demo/runtime/index.js'
import { call, startRuntime } from './helpers.js'

interface Media {
  storage_key: string
}

async function runWithFiles(runtime: AgentRuntime, userId: string) {
  const body = new FormData()
  body.set('message', 'look')
  body.set('user_id', userId)
  body.append('files', new Blob(['%PDF'], { type: 'application/pdf' }), 'scan.pdf')
  body.append('files', new Blob(['<script>'], { type: 'text/html' }), 'page.html')
  const reply = await call(runtime.url, 'POST', '/agents/a1/runs', body)
  return reply.body as { session_id: string; media: Media[] }
}

void t.test('a run file is served through its session, scoped by the query user_id', async (t) => {
  const runtime = await startRuntime(t, { agentos: '3.0' })
  const run = await runWithFiles(runtime, 'alice')
  const [pdf, html] = run.media
  t.match(pdf?.storage_key, /^sessions\/.+\/0-scan\.pdf$/, 'a key with slashes')
  const path = (key: string | undefined, session = run.session_id) =>
    `/sessions/${session}/media/${key ?? ''}`

  const served = await call(runtime.url, 'GET', path(pdf?.storage_key))
  t.equal(served.status, 200)
  t.equal(served.headers.get('content-type'), 'application/pdf')
  t.equal(served.headers.get('x-content-type-options'), 'nosniff')
  t.match(served.body, 'scan.pdf')
  const owner = await call(runtime.url, 'GET', `${path(pdf?.storage_key)}?user_id=alice&type=agent`)
  t.equal(owner.status, 200)
  const redirect = await call(runtime.url, 'GET', `${path(pdf?.storage_key)}?redirect=true`)
  t.equal(redirect.status, 200, 'local storage streams instead of redirecting')

  const active = await call(runtime.url, 'GET', path(html?.storage_key))
  t.equal(active.headers.get('content-type'), 'application/octet-stream')
  t.equal(active.headers.get('content-disposition'), 'attachment')

  const foreign = await call(runtime.url, 'GET', `${path(pdf?.storage_key)}?user_id=bob`)
  t.same([foreign.status, foreign.body], [404, { detail: `Session '${run.session_id}' not found` }])
  const wrongType = await call(runtime.url, 'GET', `${path(pdf?.storage_key)}?type=team`)
  t.equal(wrongType.status, 404)
  const badType = await call(runtime.url, 'GET', `${path(pdf?.storage_key)}?type=robot`)
  t.equal(badType.status, 422)
  const unknown = await call(runtime.url, 'GET', path('sessions/x/other.pdf'))
  t.same([unknown.status, unknown.body], [404, { detail: 'Media not found in this session' }])
  const empty = await call(runtime.url, 'GET', `/sessions/${run.session_id}/media`)
  t.same(empty.body, { detail: 'Not Found' })

  const other = await runWithFiles(runtime, 'bob')
  const elsewhere = await call(runtime.url, 'GET', path(pdf?.storage_key, other.session_id))
  t.same(
    elsewhere.body,
    { detail: 'Media not found in this session' },
    'keys belong to one session',
  )
})

void t.test('the 2.9 line has no media route', async (t) => {
  const runtime = await startRuntime(t)
  const run = await runWithFiles(runtime, 'alice')
  t.notOk('media' in run)
  const reply = await call(runtime.url, 'GET', `/sessions/${run.session_id}/media/anything`)
  t.same([reply.status, reply.body], [404, { detail: 'Not Found' }])
})
