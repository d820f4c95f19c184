/**
 * Identity fields another reader could see where the gateway's pin did not reach (stricter than
 * AgentOS, which is safe against these itself): a pinned query parameter after a `;` (a
 * separator to older Python and some proxies, part of a value to Starlette), and a user id nested
 * anywhere in a self-scoped caller's A2A metadata. Each is refused and reaches nothing; the forms
 * the pin does reach keep working. Path look-alikes (dots, trailing whitespace) are in the
 * encoded-dots and encoded-reserved corpora.
 */
import t from 'tap'
import { startRuntime } from '../helpers/runtime.js'
import { ADMIN, bearer, jwt, refused, securedGateway, send } from './harness.js'

const runtime = await startRuntime(t)
const gateway = await securedGateway(t, runtime, { auth: { user_isolation: true } })
const alice = await jwt(['sessions:read', 'agents:run'], { sub: 'alice' })
const admin = await jwt([ADMIN], { sub: 'root' })

void t.test('a pinned query parameter after ";" is refused', async (t) => {
  for (const query of [
    'limit=5;user_id=bob',
    'limit=5;user%5Fid=bob',
    'limit=5;x=1;user_id=bob',
    'user_id=alice&limit=5;user_id=bob',
    'user_id=bob;user_id=carol',
  ]) {
    const sent = await send(gateway, runtime, 'GET', `/sessions?${query}`, [bearer(alice)])
    refused(t, sent, 400, 'Ambiguous query string: user_id after ";"', query)
  }
})

void t.test(
  'every other spelling is pinned, and nothing but the pin reaches the upstream',
  async (t) => {
    for (const query of ['user_id=bob', 'user%5Fid=bob&limit=5;x=1', 'limit=5;user_idx=1']) {
      const sent = await send(gateway, runtime, 'GET', `/sessions?${query}`, [bearer(alice)])
      t.equal(sent.status, 200, query)
      const raw = sent.upstream[0]?.rawUrl ?? ''
      t.same(sent.upstream[0]?.query['user_id'], ['alice'], `${query}: pinned`)
      const readings = raw
        .slice(raw.indexOf('?') + 1)
        .split(/[&;]/)
        .filter((field) => decodeURIComponent(field.split('=')[0] ?? '') === 'user_id')
      t.same(readings, ['user_id=alice'], `${query}: split on & and ;, one user_id: the pin`)
    }
  },
)

function messageSend(metadata: Record<string, unknown>, params: Record<string, unknown> = {}) {
  return JSON.stringify({
    id: 'c2a4f0a2-3b1e-4b7e-9d43-0f1a3c2b5e61',
    jsonrpc: '2.0',
    method: 'message/send',
    params: {
      ...params,
      message: {
        kind: 'message',
        messageId: '6f1e2d3c-4b5a-4978-8f6e-5d4c3b2a1908',
        parts: [{ kind: 'text', text: 'hello' }],
        role: 'user',
        metadata,
      },
    },
  })
}

const A2A_SEND = '/a2a/agents/a1/v1/message:send'
const JSON_BODY = 'Content-Type: application/json'

void t.test("another user nested in a self-scoped caller's A2A metadata is refused", async (t) => {
  const cases: [string, string][] = [
    ['user_id beside userId', messageSend({ userId: 'alice', user_id: 'bob' })],
    ['deep in an object', messageSend({ context: { caller: { user_id: 'bob' } } })],
    ['in an array', messageSend({ hops: [{ userId: 'bob' }] })],
    ['another spelling', messageSend({ tool: { USER_ID: 'bob' } })],
    ['not a string', messageSend({ tool: { user_id: ['alice', 'bob'] } })],
    ["in the request's metadata", messageSend({}, { metadata: { user_id: 'bob' } })],
  ]
  for (const [why, body] of cases) {
    const sent = await send(gateway, runtime, 'POST', A2A_SEND, [bearer(alice), JSON_BODY], body)
    t.equal(sent.status, 400, `${why}: 400`)
    t.match(String(sent.detail), /may not name another user/, why)
    t.equal(sent.started, 0, `${why}: the upstream saw nothing`)
  }
})

void t.test('its own id anywhere, and an admin naming anyone, pass unchanged', async (t) => {
  const own = messageSend({ userId: 'bob', context: { user_id: 'alice' } })
  const mine = await send(gateway, runtime, 'POST', A2A_SEND, [bearer(alice), JSON_BODY], own)
  t.equal(mine.status, 200, 'its own id nested: forwarded')
  const metadata = (mine.upstream[0]?.json as { params: { message: { metadata: unknown } } }).params
    .message.metadata
  t.same(metadata, { userId: 'alice', context: { user_id: 'alice' } }, 'userId pinned')

  const theirs = messageSend({ context: { user_id: 'bob' } })
  const root = await send(gateway, runtime, 'POST', A2A_SEND, [bearer(admin), JSON_BODY], theirs)
  t.equal(root.status, 200, 'an admin is not self-scoped: forwarded')
  t.same(root.upstream[0]?.json, JSON.parse(theirs), 'unchanged')
})
