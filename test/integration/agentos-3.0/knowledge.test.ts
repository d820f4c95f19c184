/**
 * Knowledge content under the AgentOS 3.0 line (V3-KNOW-1, V3-KNOW-1G): through the gateway in
 * front of an open AgentOS 3.0.0a3, uploads get their uploader as owner; another user's content
 * is not found, shared content read-only, listings hold what the caller may see.
 */
import t from 'tap'
import { ADMIN, listedIds, mintAccount, passed, refused, start, token } from './helpers.js'

const KNOWLEDGE = ['knowledge:read', 'knowledge:write', 'knowledge:delete']

void t.test('knowledge content, user isolation on', async (t) => {
  const stack = await start(t, { userIsolation: true })
  const admin = await token([ADMIN], 'root')
  const workspaceAdmin = await token([ADMIN], null)
  const alice = await token(KNOWLEDGE, 'alice')
  const bob = await token(KNOWLEDGE, 'bob')
  const ci = await mintAccount(stack, admin, 'ci', KNOWLEDGE)

  const upload = async (credential: string, name: string): Promise<string> => {
    const reply = await stack.call('POST', '/knowledge/content', {
      token: credential,
      form: { name, text_content: `about ${name}` },
    })
    passed(t, reply, 202)
    return (reply.body as { id: string }).id
  }
  const aliceDoc = await upload(alice, 'alice notes')
  const bobDoc = await upload(bob, 'bob notes')
  const shared = await upload(workspaceAdmin, 'handbook')
  const remote = await stack.call('POST', '/knowledge/remote-content', {
    token: ci,
    form: { config_id: 's3', path: 'reports/q1.pdf' },
  })
  passed(t, remote, 202)
  const ciDoc = (remote.body as { id: string }).id

  await t.test('owners recorded from the answers; the upstream stores none', async (t) => {
    t.same(await stack.owners.ownerOf('knowledge_content', aliceDoc), {
      known: true,
      owner: 'alice',
    })
    t.same(await stack.owners.ownerOf('knowledge_content', shared), { known: true, owner: null })
    t.same(await stack.owners.ownerOf('knowledge_content', ciDoc), { known: true, owner: 'sa:ci' })
    const upstream = await stack.direct('GET', `/knowledge/content/${aliceDoc}`)
    t.equal((upstream.body as { user_id: unknown }).user_id, null, 'an open AgentOS records none')
  })

  await t.test("another user's content is not found", async (t) => {
    const notFound = `Content not found: ${aliceDoc}`
    refused(
      t,
      await stack.call('GET', `/knowledge/content/${aliceDoc}`, { token: bob }),
      404,
      notFound,
    )
    refused(
      t,
      await stack.call('GET', `/knowledge/content/${aliceDoc}/status`, { token: bob }),
      404,
      notFound,
    )
    refused(
      t,
      await stack.call('PATCH', `/knowledge/content/${aliceDoc}`, {
        token: ci,
        form: { name: 'taken' },
      }),
      404,
      notFound,
    )
    refused(
      t,
      await stack.call('DELETE', `/knowledge/content/${aliceDoc}`, { token: bob }),
      404,
      notFound,
    )
    passed(t, await stack.call('GET', `/knowledge/content/${aliceDoc}`, { token: alice }), 200)
    passed(t, await stack.call('GET', `/knowledge/content/${aliceDoc}`, { token: admin }), 200)
  })

  await t.test('shared content is read-only to non-admins', async (t) => {
    passed(t, await stack.call('GET', `/knowledge/content/${shared}`, { token: bob }), 200)
    refused(
      t,
      await stack.call('PATCH', `/knowledge/content/${shared}`, {
        token: bob,
        form: { name: 'mine' },
      }),
      403,
      'Cannot modify shared content',
    )
    refused(
      t,
      await stack.call('DELETE', `/knowledge/content/${shared}`, { token: bob }),
      403,
      'Cannot delete shared content',
    )
    refused(
      t,
      await stack.call('DELETE', '/knowledge/content', { token: bob }),
      403,
      'Cannot delete shared content',
    )
    passed(
      t,
      await stack.call('PATCH', `/knowledge/content/${shared}`, {
        token: admin,
        form: { name: 'handbook v2' },
      }),
      200,
    )
  })

  await t.test('listings hold what the caller may see', async (t) => {
    const ofBob = await stack.call('GET', '/knowledge/content?limit=10', { token: bob })
    passed(t, ofBob, 200)
    t.same(listedIds(ofBob.body, 'id').sort(), [bobDoc, shared].sort())
    t.match((ofBob.body as { meta: unknown }).meta, { total_count: 2, total_pages: 1 })
    const ofAdmin = await stack.call('GET', '/knowledge/content?limit=10', { token: admin })
    t.equal(listedIds(ofAdmin.body, 'id').length, 4)
  })

  await t.test('a deletion drops the owner record', async (t) => {
    passed(t, await stack.call('DELETE', `/knowledge/content/${bobDoc}`, { token: bob }), 200)
    t.same(await stack.owners.ownerOf('knowledge_content', bobDoc), { known: false })
    passed(t, await stack.call('DELETE', '/knowledge/content', { token: admin }), 200)
  })
})
