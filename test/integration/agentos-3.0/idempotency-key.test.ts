/**
 * V3-IDEM-1: AgentOS 3.0 reads an `Idempotency-Key` on run routes (the durable queue
 * de-duplicates on it with the run's `user_id`); the gateway passes it through untouched, and the
 * run pin makes that `user_id` the caller's, so one caller's key never matches another's run.
 * Through a real gateway pinned to 3.0 against the demo runtime as an open 3.0.0a3.
 */
import t from 'tap'
import {
  ADMIN,
  forwarded,
  jConfig,
  jwt,
  stack30,
  startRuntime30,
  upstreamHeader,
} from './line-3.0.js'

const runtime = await startRuntime30(t)
const J = await stack30(t, runtime, jConfig())
const alice = await jwt(['agents:run', 'teams:run', 'workflows:run'], { sub: 'alice' })
const admin = await jwt([ADMIN], { sub: 'the-admin' })

/** Visible ASCII a client may well send, none of it special to the gateway. */
const KEY = 'nightly-2024/05/07 #7; retry="x"=y'

void t.test(
  'V3-IDEM-1 the Idempotency-Key reaches the upstream byte for byte and its echo comes back, on every run route',
  async (t) => {
    for (const path of ['/agents/a1/runs', '/teams/t1/runs', '/workflows/w1/runs']) {
      const reply = await J.call('POST', path, {
        token: alice,
        headers: { 'idempotency-key': KEY },
        form: { message: 'once', stream: 'false' },
      })
      forwarded(t, reply, 200, path)
      t.equal(upstreamHeader(reply, 'idempotency-key'), KEY, 'untouched')
      t.match(reply.body, { idempotency_key: KEY, user_id: 'alice' }, 'the upstream’s echo')
    }
  },
)

void t.test('V3-IDEM-1 no key sent, none invented', async (t) => {
  const reply = await J.call('POST', '/agents/a1/runs', {
    token: alice,
    form: { message: 'plain', stream: 'false' },
  })
  forwarded(t, reply, 200, '/agents/a1/runs')
  t.equal(upstreamHeader(reply, 'idempotency-key'), undefined)
  t.match(reply.body, { idempotency_key: null })
})

void t.test(
  'V3-IDEM-1 a background run’s queue job carries the key untouched and the caller as its user, whatever the form says',
  async (t) => {
    const reply = await J.call('POST', '/agents/a1/runs', {
      token: alice,
      headers: { 'idempotency-key': `${KEY} (background)` },
      form: { message: 'later', stream: 'false', background: 'true', user_id: 'mallory' },
    })
    forwarded(t, reply, 200, '/agents/a1/runs')
    t.same(reply.upstream?.form?.user_id, ['alice'], 'the run pin')
    const runId = (reply.body as { run_id: string }).run_id
    const jobs = await J.call('GET', '/queue/jobs', { token: admin })
    const job = (jobs.body as { jobs: { run_id: string }[] }).jobs.find(
      (item) => item.run_id === runId,
    )
    t.match(job, { idempotency_key: `${KEY} (background)`, user_id: 'alice' })
  },
)

void t.test(
  'V3-IDEM-1 a multipart run (the body rewritten as it streams) keeps the key too',
  async (t) => {
    const body = new FormData()
    body.set('message', 'with a file')
    body.set('stream', 'false')
    body.set('user_id', 'mallory')
    body.append('files', new Blob(['hello'], { type: 'text/plain' }), 'note.txt')
    runtime.clear()
    const response = await fetch(`${J.gateway.url}/agents/a1/runs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${alice}`, 'idempotency-key': KEY },
      body,
    })
    t.equal(response.status, 200)
    t.match(await response.json(), { idempotency_key: KEY, user_id: 'alice' })
    t.equal(runtime.requests.length, 1)
    t.equal(runtime.requests[0]?.headers['idempotency-key'], KEY)
  },
)
