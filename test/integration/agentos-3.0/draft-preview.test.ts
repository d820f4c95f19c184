/**
 * Draft previews under the AgentOS 3.0 line (V3-DRAFT-1 to V3-DRAFT-3, V3-DRAFT-1G to
 * V3-DRAFT-3G): through the gateway in front of an open AgentOS 3.0.0a3 (which lets anyone run
 * any version), a run or read pinned to a draft version is for admins and the component's owner;
 * everyone else gets the family's not-found.
 */
import t from 'tap'
import { draftScene } from './draft-scene.js'
import { passed, refused } from './helpers.js'

const AUTHOR = [
  'components:read',
  'components:write',
  'agents:run',
  'teams:run',
  'workflows:run',
  'workflows:read',
]
const RUNNER = ['agents:run', 'teams:run', 'workflows:run', 'workflows:read']

/** A multipart body of text fields. */
function multipart(fields: Record<string, string>): { body: string; contentType: string } {
  const boundary = 'draft-preview-boundary'
  const parts = Object.entries(fields).map(
    ([name, value]) =>
      `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`,
  )
  return {
    body: `${parts.join('')}--${boundary}--\r\n`,
    contentType: `multipart/form-data; boundary=${boundary}`,
  }
}

for (const userIsolation of [false, true]) {
  void t.test(`draft versions, user isolation ${userIsolation ? 'on' : 'off'}`, async (t) => {
    const { stack, admin, alice, bob, runner } = await draftScene(t, {
      userIsolation,
      author: AUTHOR,
      runner: RUNNER,
    })
    const run = (family: string, id: string, credential: string, fields: object) =>
      stack.call('POST', `/${family}/${id}/runs`, {
        token: credential,
        form: { message: 'hi', ...fields },
      })

    await t.test('a draft run is not found for other callers', async (t) => {
      refused(t, await run('agents', 'a1', bob, { version: '1' }), 404, 'Agent not found')
      refused(t, await run('teams', 't1', bob, { version: '1' }), 404, 'Team not found')
      refused(t, await run('workflows', 'w1', runner, { version: '1' }), 404, 'Workflow not found')
      // Every spelling the upstream reads as 1.
      refused(t, await run('agents', 'a1', bob, { version: ' +01 ' }), 404, 'Agent not found')
      const form = multipart({ message: 'hi', version: '1' })
      refused(
        t,
        await stack.call('POST', '/agents/a1/runs', {
          token: bob,
          body: form.body,
          contentType: form.contentType,
        }),
        404,
        'Agent not found',
      )
    })

    await t.test('the owner and the admin preview it', async (t) => {
      passed(t, await run('agents', 'a1', alice, { version: '1' }), 200)
      passed(t, await run('teams', 't1', admin, { version: '1' }), 200)
      const form = multipart({ message: 'hi', version: '1' })
      passed(
        t,
        await stack.call('POST', '/workflows/w1/runs', {
          token: alice,
          body: form.body,
          contentType: form.contentType,
        }),
        200,
      )
    })

    await t.test('published versions, no version, and versions no config has', async (t) => {
      passed(t, await run('agents', 'a1', bob, { version: '2' }), 200)
      passed(t, await run('agents', 'a2', bob, {}), 200)
      const absent = await run('agents', 'a1', bob, { version: '9' })
      passed(t, absent, 404)
      t.equal(absent.detail, 'Agent not found', "the upstream's own 404")
    })

    await t.test('a read pinned to a draft (V3-DRAFT-2G)', async (t) => {
      refused(
        t,
        await stack.call('GET', '/workflows/w1?version=1', { token: bob }),
        404,
        'Workflow not found',
      )
      passed(t, await stack.call('GET', '/workflows/w1?version=1', { token: alice }), 200)
      passed(t, await stack.call('GET', '/workflows/w1', { token: bob }), 200)
    })

    await t.test('a client-sent version stamp never reaches the run', async (t) => {
      const sent = await run('agents', 'a2', bob, {
        metadata: JSON.stringify({ agno_component_version: 1, team: 'x' }),
      })
      passed(t, sent, 200)
      t.same(sent.forwarded?.form?.['metadata'], [JSON.stringify({ team: 'x' })])
    })

    await t.test('a component whose owner is not known: admins only (V3-OWN-1G)', async (t) => {
      t.equal(
        (
          await stack.direct('POST', '/components', {
            name: 'Agent Two',
            component_id: 'a2',
            component_type: 'agent',
          })
        ).status,
        201,
      )
      refused(t, await run('agents', 'a2', alice, { version: '1' }), 404, 'Agent not found')
      passed(t, await run('agents', 'a2', admin, { version: '1' }), 200)
    })
  })
}
