/**
 * V3-DRAFT-3G: a continue of a run started at a draft version re-checks the version stamped on the
 * run, as AgentOS 3.0.0a3's continue routes do. Through the gateway in front of an open AgentOS
 * 3.0.0a3 (which continues any run at its stamped version), only admins and the component's owner
 * continue a run stamped with a draft; everyone else gets the family's not-found.
 */
import t from 'tap'
import { draftScene } from './draft-scene.js'
import { passed, refused } from './helpers.js'

const AUTHOR = ['components:write', 'agents:run', 'teams:run', 'workflows:run']
const RUNNER = ['agents:run', 'teams:run', 'workflows:run']

interface StartedRun {
  readonly run_id: string
  readonly session_id: string
}

for (const userIsolation of [false, true]) {
  void t.test(
    `continuing stamped runs, user isolation ${userIsolation ? 'on' : 'off'}`,
    async (t) => {
      const { stack, admin, alice, bob, runner } = await draftScene(t, {
        userIsolation,
        author: AUTHOR,
        runner: RUNNER,
      })
      const run = async (family: string, id: string, credential: string, fields: object) => {
        const reply = await stack.call('POST', `/${family}/${id}/runs`, {
          token: credential,
          form: { message: 'hi', ...fields },
        })
        if (reply.status !== 200) throw new Error(`run ${id}: ${reply.status} ${reply.text}`)
        return reply.body as StartedRun
      }
      const resume = (family: string, id: string, credential: string, started: StartedRun) =>
        stack.call('POST', `/${family}/${id}/runs/${started.run_id}/continue`, {
          token: credential,
          form: { session_id: started.session_id, tools: '' },
        })

      const draftAgent = await run('agents', 'a1', alice, { version: '1' })
      const draftTeam = await run('teams', 't1', alice, { version: '1' })
      const draftWorkflow = await run('workflows', 'w1', alice, { version: '1' })

      await t.test('a run stamped with a draft is not found for other callers', async (t) => {
        refused(t, await resume('agents', 'a1', bob, draftAgent), 404, 'Agent not found')
        refused(t, await resume('teams', 't1', bob, draftTeam), 404, 'Team not found')
        refused(
          t,
          await resume('workflows', 'w1', runner, draftWorkflow),
          404,
          'Workflow not found',
        )
        const boundary = 'stamped-run-boundary'
        const field = `Content-Disposition: form-data; name="session_id"\r\n\r\n${draftAgent.session_id}`
        refused(
          t,
          await stack.call('POST', `/agents/a1/runs/${draftAgent.run_id}/continue`, {
            token: bob,
            body: `--${boundary}\r\n${field}\r\n--${boundary}--\r\n`,
            contentType: `multipart/form-data; boundary=${boundary}`,
          }),
          404,
          'Agent not found',
        )
      })

      // Without user isolation a caller may name any session: the screen alone decides.
      if (!userIsolation)
        await t.test(
          'a multipart session id beyond ASCII is read as the upstream reads it',
          async (t) => {
            // Starlette decodes multipart text as UTF-8: the gateway must look up the same session,
            // or a draft run in a session named beyond ASCII would be continued unchecked.
            const sessionId = 'sesión-α'
            const started = await run('agents', 'a1', alice, {
              version: '1',
              session_id: sessionId,
            })
            t.equal(started.session_id, sessionId)
            const boundary = 'utf8-session-boundary'
            const body = Buffer.from(
              `--${boundary}\r\nContent-Disposition: form-data; name="session_id"\r\n\r\n` +
                `${sessionId}\r\n--${boundary}--\r\n`,
              'utf8',
            )
            const continued = (credential: string) =>
              stack.call('POST', `/agents/a1/runs/${started.run_id}/continue`, {
                token: credential,
                body,
                contentType: `multipart/form-data; boundary=${boundary}`,
              })
            refused(t, await continued(bob), 404, 'Agent not found')
            const owner = await continued(alice)
            passed(t, owner, 200)
            t.same(owner.forwarded?.form?.['session_id'], [sessionId], 'forwarded byte for byte')
          },
        )

      await t.test('its owner and the admin continue it', async (t) => {
        passed(t, await resume('agents', 'a1', alice, draftAgent), 200)
        passed(t, await resume('workflows', 'w1', alice, draftWorkflow), 200)
        passed(t, await resume('teams', 't1', admin, draftTeam), 200)
      })

      await t.test('runs stamped with a published version, or none, continue', async (t) => {
        const published = await run('agents', 'a1', bob, { version: '2' })
        passed(t, await resume('agents', 'a1', bob, published), 200)
        const unpinned = await run('agents', 'a2', bob, {})
        passed(t, await resume('agents', 'a2', bob, unpinned), 200)
        // A stamp the client sent never reaches the run, so nothing is re-checked on continue.
        const forged = await run('agents', 'a2', bob, {
          metadata: JSON.stringify({ agno_component_version: 1 }),
        })
        passed(t, await resume('agents', 'a2', bob, forged), 200)
      })

      await t.test('a stamped version no config has any more: the upstream answers', async (t) => {
        const stale = await run('agents', 'a1', alice, { version: '1' })
        passed(t, await stack.call('DELETE', '/components/a1/configs/1', { token: admin }), 204)
        const reply = await resume('agents', 'a1', bob, stale)
        passed(t, reply, 404)
        t.equal(
          reply.detail,
          `Agent version 1 recorded on run ${stale.run_id} is no longer available`,
        )
      })
    },
  )
}
