/**
 * One multipart form, one rewrite: through the gateway in front of an open AgentOS 3.0.0a3, a run
 * form carries both identity's pins (`user_id`, and the JWT's `session_id` on continues) and the
 * fields AgentOS 3.0's handler checks screen (`version`, `session_id`). The screens see the
 * pinned values, the upstream receives each pinned field once, and the part bound counts the
 * client's parts once (a second pass over the first one's output would count the pins too).
 * With user isolation on, a continue's form is read whole first (the session gate inspects it)
 * and still written once.
 */
import t from 'tap'
import { signJwt } from '../../helpers/jwt.js'
import { draftScene } from './draft-scene.js'
import { K, passed, refused } from './helpers.js'

const RUNNER = ['agents:run', 'teams:run', 'workflows:run']
const BOUNDARY = 'one-form-boundary'
const CONTENT_TYPE = `multipart/form-data; boundary=${BOUNDARY}`

function multipart(fields: readonly (readonly [string, string])[]): string {
  const parts = fields.map(
    ([name, value]) =>
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`,
  )
  return `${parts.join('')}--${BOUNDARY}--\r\n`
}

/** A JWT for `sub` that carries the session it continues. */
function sessionToken(sub: string, sessionId: string): Promise<string> {
  const exp = Math.floor(Date.now() / 1000) + 3600
  return signJwt({ scopes: RUNNER, sub, session_id: sessionId, exp }, { alg: 'HS256', key: K })
}

interface StartedRun {
  readonly run_id: string
  readonly session_id: string
}

for (const userIsolation of [false, true]) {
  void t.test(`pins and screens in one pass, user isolation ${userIsolation}`, async (t) => {
    const { stack, alice, bob } = await draftScene(t, {
      userIsolation,
      author: ['components:write', ...RUNNER],
      runner: RUNNER,
    })
    const lookups = () =>
      stack.runtime.requests
        .filter((request) => request.method === 'GET')
        .map((request) => request.rawUrl)
    const start = async (credential: string, version: string): Promise<StartedRun> => {
      const reply = await stack.call('POST', '/agents/a1/runs', {
        token: credential,
        body: multipart([
          ['user_id', 'mallory'],
          ['message', 'hi'],
          ['version', version],
        ]),
        contentType: CONTENT_TYPE,
      })
      passed(t, reply, 200)
      t.same(reply.forwarded?.form?.['user_id'], [credential === bob ? 'bob' : 'alice'], 'pinned')
      t.same(reply.forwarded?.form?.['version'], [version], 'screened, as sent')
      t.same(lookups(), [`/components/a1/configs/${version}`], 'the screen asked for the version')
      return reply.body as StartedRun
    }

    const draft = await start(alice, '1')
    const published = await start(bob, '2')

    await t.test(
      'a continue: the screen looks up the pinned session, not the client’s',
      async (t) => {
        // bob's JWT names the draft run's session; his form names his own.
        const intoDraft = await stack.call('POST', `/agents/a1/runs/${draft.run_id}/continue`, {
          token: await sessionToken('bob', draft.session_id),
          body: multipart([['session_id', published.session_id]]),
          contentType: CONTENT_TYPE,
        })
        refused(t, intoDraft, 404, 'Agent not found')
        t.same(lookups(), [
          `/agents/a1/runs/${draft.run_id}?session_id=${draft.session_id}`,
          `/components/a1/configs/1`,
        ])

        const own = await stack.call('POST', `/agents/a1/runs/${published.run_id}/continue`, {
          token: await sessionToken('bob', published.session_id),
          body: multipart([
            ['session_id', draft.session_id],
            ['user_id', 'mallory'],
            ['tools', ''],
            ['session_id', 'another'],
          ]),
          contentType: CONTENT_TYPE,
        })
        passed(t, own, 200)
        t.same(lookups(), [
          `/agents/a1/runs/${published.run_id}?session_id=${published.session_id}`,
          `/components/a1/configs/2`,
        ])
        t.same(own.forwarded?.form, {
          user_id: ['bob'],
          session_id: [published.session_id],
          tools: [''],
        })
        t.match(
          own.forwarded?.headers['content-type'],
          /^multipart\/form-data; boundary=----portcullis[0-9a-f]{24}$/,
        )
      },
    )

    await t.test('a text part in a charset of its own busboy cannot decode: 400', async (t) => {
      // busboy hands such a part over without a value: it must be refused, not thrown on.
      const part =
        `--${BOUNDARY}\r\nContent-Disposition: form-data; name="message"\r\n` +
        `Content-Type: text/plain; charset=shift_jis\r\n\r\nhi\r\n--${BOUNDARY}--\r\n`
      const reply = await stack.call('POST', '/agents/a1/runs', {
        token: bob,
        body: part,
        contentType: CONTENT_TYPE,
      })
      t.equal(reply.status, 400)
      t.equal(reply.detail, 'Invalid multipart body')
      const next = await stack.call('POST', '/agents/a1/runs', {
        token: bob,
        body: multipart([['message', 'hi']]),
        contentType: CONTENT_TYPE,
      })
      passed(t, next, 200)
    })

    await t.test('the part bound counts the client’s parts, once', async (t) => {
      const fillers = Array.from({ length: 1_998 }, () => ['filler', ''] as const)
      const most = await stack.call('POST', '/agents/a1/runs', {
        token: bob,
        body: multipart([...fillers, ['message', 'hi'], ['version', '2']]),
        contentType: CONTENT_TYPE,
      })
      passed(t, most, 200)
      t.equal(most.forwarded?.form?.['filler']?.length, 1_998)
      t.same(most.forwarded?.form?.['user_id'], ['bob'], 'with the pin: one part more than sent')
      const tooMany = await stack.call('POST', '/agents/a1/runs', {
        token: bob,
        body: multipart([...fillers, ['filler', ''], ['message', 'hi'], ['version', '2']]),
        contentType: CONTENT_TYPE,
      })
      t.equal(tooMany.status, 413, 'one part more than the bound')
      t.equal(tooMany.detail, 'Request body too large')
    })
  })
}
