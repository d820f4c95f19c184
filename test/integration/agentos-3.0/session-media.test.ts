/**
 * V3-MEDIA-1: AgentOS 3.0's `GET /sessions/{id}/media/{key}` falls under `GET /sessions/*`
 * (`sessions:read`); its handler reads the session with the caller's scoped id, or, unscoped, the
 * query `user_id`. The gateway pins that query for every scoped caller, so the open upstream
 * refuses another user's session with its own 404 `Session '<id>' not found`. Through real
 * gateways pinned to 3.0 against the demo runtime as an open 3.0.0a3 with local media storage.
 */
import t, { type Test } from 'tap'
import {
  ADMIN,
  forwarded,
  ip,
  jConfig,
  jwt,
  MISSING_IDENTITY,
  refused,
  stack30,
  startRuntime30,
  type Reply,
  type Stack,
} from './line-3.0.js'

const runtime = await startRuntime30(t)
const JI = await stack30(t, runtime, jConfig({ user_isolation: true }))
const J = await stack30(t, runtime, jConfig())
const reader = (sub: string | null) => jwt(['sessions:read', 'agents:run'], { sub })
const alice = await reader('alice')
const bob = await reader('bob')
const admin = await jwt([ADMIN], { sub: 'the-admin' })

/** alice's run with a file, started through the gateway as a client would (multipart). */
async function runWithFile(fixture: Stack): Promise<{ session: string; key: string }> {
  const body = new FormData()
  body.set('message', 'read this')
  body.set('stream', 'false')
  body.append('files', new Blob(['%PDF-1.7'], { type: 'application/pdf' }), 'scan.pdf')
  const response = await fetch(`${fixture.gateway.url}/agents/a1/runs`, {
    method: 'POST',
    headers: { authorization: `Bearer ${alice}` },
    body,
  })
  const run = (await response.json()) as { session_id: string; media?: { storage_key: string }[] }
  const key = run.media?.[0]?.storage_key
  if (response.status !== 200 || key === undefined) {
    throw new Error(`setup: run answered ${response.status}`)
  }
  return { session: run.session_id, key }
}

const { session, key } = await runWithFile(JI)
const media = `/sessions/${session}/media/${key}`
const notFound = `Session '${session}' not found`

function served(t: Test, reply: Reply): void {
  forwarded(t, reply, 200, media)
  t.equal(reply.headers['content-type'], 'application/pdf')
  t.match(reply.text, 'scan.pdf')
}

void t.test(
  'V3-MEDIA-1 JI: the owner reads her session’s media (query pinned to her)',
  async (t) => {
    const reply = await JI.call('GET', media, { token: alice })
    served(t, reply)
    t.same(reply.upstream?.query.user_id, ['alice'])
  },
)

void t.test(
  'V3-MEDIA-1 JI: another user → the upstream’s 404 "Session \'<id>\' not found", also when naming the owner',
  async (t) => {
    for (const query of ['', '?user_id=alice', '?type=agent&user_id=alice']) {
      const reply = await JI.call('GET', `${media}${query}`, { token: bob })
      forwarded(t, reply, 404, media)
      t.equal(reply.detail, notFound)
      t.same(reply.upstream?.query.user_id, ['bob'], 'pinned to the caller')
    }
  },
)

void t.test('V3-MEDIA-1 JI: an admin reads any session’s media, unpinned', async (t) => {
  const reply = await JI.call('GET', media, { token: admin })
  served(t, reply)
  t.equal(reply.upstream?.query.user_id, undefined)
})

void t.test(
  'V3-MEDIA-1 JI: without sessions:read → 403ip(sessions:read); without sub → 403 "missing a user identity" (V3-ISO-1)',
  async (t) => {
    const runner = await jwt(['agents:run'], { sub: 'alice' })
    refused(t, await JI.call('GET', media, { token: runner }), 403, ip('sessions:read'))
    refused(t, await JI.call('GET', media, { token: await reader(null) }), 403, MISSING_IDENTITY)
  },
)

void t.test(
  'V3-MEDIA-1 J (no isolation): JWT users are unscoped and read any session’s media, as 3.0 lets them',
  async (t) => {
    const reply = await J.call('GET', media, { token: bob })
    served(t, reply)
    t.equal(reply.upstream?.query.user_id, undefined)
  },
)
