/**
 * Draft versions in run forms (V3-DRAFT-3, V3-DRAFT-1G): every copy of `version` decided on
 * before the upstream can act on it, url-encoded or multipart (streamed), and a client-sent
 * version stamp taken out of `metadata`.
 */
import t from 'tap'
import { GatewayError } from '../../../../src/errors.js'
import { PASS_THROUGH } from '../../../../src/upstream/forward-plan.js'
import { gatewayErrorOf } from '../../auth/helpers.js'
import { jwtPrincipal } from '../helpers.js'
import { ADMIN, draftStageDeps, plannedBody, runStage, stageRequest } from './helpers.js'

const bob = jwtPrincipal(['agents:run'], 'bob')
const alice = jwtPrincipal(['agents:run'], 'alice')
const FORM = 'application/x-www-form-urlencoded'

function setup() {
  return draftStageDeps({
    '/components/a1/configs/9': { status: 404, value: { detail: 'Config a1 v9 not found' } },
  })
}

const run = (principal = bob, body: string, contentType = FORM) =>
  stageRequest({ method: 'POST', target: '/agents/a1/runs', principal, body, contentType })

function multipart(fields: [string, string][], charset = ''): { body: string; type: string } {
  const boundary = 'b0undary'
  const parts = fields.map(
    ([name, value]) =>
      `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`,
  )
  return {
    body: `${parts.join('')}--${boundary}--\r\n`,
    type: `multipart/form-data; boundary=${boundary}${charset}`,
  }
}

void t.test('url-encoded: every copy of version decided on', async (t) => {
  const { deps, calls } = await setup()
  const refused = await gatewayErrorOf(() =>
    runStage(deps, run(bob, 'message=hi&version=2&version=1')),
  )
  t.same(
    [refused.status, refused.detail, refused.reason],
    [404, 'Agent not found', 'handlers.draft_preview'],
  )
  const published = await runStage(deps, run(bob, 'message=hi&version=2&version=9'))
  t.equal(await plannedBody(published), 'message=hi&version=2&version=9', 'sent as it came')
  t.same(calls, [
    '/components/a1/configs/2',
    '/components/a1/configs/1',
    '/components/a1/configs/2',
    '/components/a1/configs/9',
  ])
  const own = await runStage(deps, run(alice, 'message=hi&version=1'))
  t.equal(await plannedBody(own), 'message=hi&version=1')
  const admin = await runStage(deps, run(jwtPrincipal([ADMIN], 'root'), 'version=1'))
  t.equal(admin, PASS_THROUGH, 'privileged: nothing read')
})

void t.test('url-encoded: a version stamp taken out of metadata', async (t) => {
  const { deps } = await setup()
  const metadata = encodeURIComponent('{"agno_component_version":1,"k":"v"}')
  const plan = await runStage(deps, run(bob, `message=hi&metadata=${metadata}&user_id=bob`))
  const sent = new URLSearchParams(await plannedBody(plan))
  t.same(sent.getAll('metadata'), ['{"k":"v"}'], 'once, without the stamp')
  t.same([sent.get('message'), sent.get('user_id')], ['hi', 'bob'], 'the rest kept')
  const untouched = await runStage(deps, run(bob, 'message=hi&metadata=%7B%7D'))
  t.equal(await plannedBody(untouched), 'message=hi&metadata=%7B%7D')
})

void t.test('multipart: streamed, refused before its end', async (t) => {
  const { deps } = await setup()
  const refusedForm = multipart([
    ['message', 'hi'],
    ['version', '1'],
    ['tail', 'after'],
  ])
  const plan = await runStage(deps, run(bob, refusedForm.body, refusedForm.type))
  const failure = await plannedBody(plan).then(
    () => undefined,
    (error: unknown) => error,
  )
  t.ok(failure instanceof GatewayError, 'the body fails')
  t.same(
    [(failure as GatewayError).status, (failure as GatewayError).detail],
    [404, 'Agent not found'],
  )
  const scrubbed = multipart([
    ['message', 'hi'],
    ['metadata', '{"agno_component_version":1}'],
    ['version', '2'],
  ])
  const sent = await plannedBody(await runStage(deps, run(bob, scrubbed.body, scrubbed.type)))
  t.match(sent, /name="metadata"\r\n\r\n\{\}\r\n/)
  t.match(sent, /name="version"\r\n\r\n2\r\n/)
  t.match(sent, /name="message"\r\n\r\nhi\r\n/)
})

void t.test(
  'multipart in a charset not read as Starlette does, JSON, and an earlier plan',
  async (t) => {
    const { deps } = await setup()
    const unread = multipart([['version', '1']], '; charset=shift_jis')
    const refused = await gatewayErrorOf(() => runStage(deps, run(bob, unread.body, unread.type)))
    t.same([refused.status, refused.reason], [400, 'identity.multipart_charset'])
    const latin = multipart([['version', '2']], '; charset=latin1')
    t.match(await plannedBody(await runStage(deps, run(bob, latin.body, latin.type))), /2/)
    const utf8 = multipart([['version', '2']], '; charset=UTF-8')
    t.match(await plannedBody(await runStage(deps, run(bob, utf8.body, utf8.type))), /2/)
    const json = run(bob, '{"version": 1}', 'application/json')
    t.equal(await runStage(deps, json), PASS_THROUGH, 'no form: the run routes read forms only')
    // An earlier step's multipart edit (an identity pin) is what the screen sees, in the same pass.
    const pinnedForm = multipart([['version', '2']])
    const pinned = run(bob, pinnedForm.body, pinnedForm.type)
    pinned.body.editForm({ set: [{ name: 'version', value: '1', always: false }] })
    const plan = await runStage(deps, pinned)
    t.equal(
      (await gatewayErrorOf(() => plannedBody(plan))).status,
      404,
      'the pinned draft is refused',
    )
    const buffered = run(bob, 'version=2')
    buffered.body.setBytes(Buffer.from('version=1'), FORM)
    t.equal((await gatewayErrorOf(() => runStage(deps, buffered))).status, 404)
  },
)

void t.test('a read pinned to a version in the query', async (t) => {
  const { deps } = await setup()
  const read = (query: string) =>
    stageRequest({ method: 'GET', target: `/agents/a1?${query}`, principal: bob })
  t.equal((await gatewayErrorOf(() => runStage(deps, read('version=1')))).detail, 'Agent not found')
  t.equal(await runStage(deps, read('version=2&other=1')), PASS_THROUGH)
  t.equal(await runStage(deps, read('version=x')), PASS_THROUGH, 'the upstream answers its 422')
})
