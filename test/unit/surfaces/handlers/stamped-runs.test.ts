/**
 * The version stamped on a continued run (V3-DRAFT-3G): the run each `session_id` of the form
 * names is read from the upstream, and a stamped draft decided on as a run start's `version`.
 */
import t from 'tap'
import { PASS_THROUGH } from '../../../../src/upstream/forward-plan.js'
import { gatewayErrorOf } from '../../auth/helpers.js'
import { jwtPrincipal } from '../helpers.js'
import { ADMIN, draftStageDeps, plannedBody, runStage, stageRequest } from './helpers.js'

const bob = jwtPrincipal(['agents:run'], 'bob')
const alice = jwtPrincipal(['agents:run'], 'alice')
const FORM = 'application/x-www-form-urlencoded'
const RUN = '/agents/a1/runs/r1'
const stamped = (stamp: unknown) => ({ status: 200, value: { run_id: 'r1', metadata: stamp } })

function setup() {
  return draftStageDeps({
    [`${RUN}?session_id=draft`]: stamped({ agno_component_version: 1 }),
    [`${RUN}?session_id=published`]: stamped({ agno_component_version: 2 }),
    [`${RUN}?session_id=text`]: stamped({ agno_component_version: ' 1 ' }),
    [`${RUN}?session_id=fraction`]: stamped({ agno_component_version: 1.5 }),
    [`${RUN}?session_id=unstamped`]: stamped({ k: 'v' }),
    [`${RUN}?session_id=no-metadata`]: stamped(null),
    [`${RUN}?session_id=elsewhere`]: { status: 404, value: { detail: 'Run not found' } },
    [`${RUN}?session_id=broken`]: { status: 500, value: { detail: 'Internal Server Error' } },
  })
}

const resume = (principal: typeof bob, body: string) =>
  stageRequest({ method: 'POST', target: `${RUN}/continue`, principal, body, contentType: FORM })

void t.test('a run stamped with a draft: not found for all but its owner', async (t) => {
  const { deps, calls } = await setup()
  const refused = await gatewayErrorOf(() => runStage(deps, resume(bob, 'session_id=draft')))
  t.same(
    [refused.status, refused.detail, refused.reason],
    [404, 'Agent not found', 'handlers.draft_preview'],
  )
  t.same(calls, [`${RUN}?session_id=draft`, '/components/a1/configs/1'])
  const textual = await gatewayErrorOf(() => runStage(deps, resume(bob, 'session_id=text')))
  t.equal(textual.status, 404, 'a stamp in words is read as the upstream reads an int')
  const anyCopy = await gatewayErrorOf(() =>
    runStage(deps, resume(bob, 'session_id=draft&session_id=unstamped')),
  )
  t.equal(anyCopy.status, 404, 'every copy of session_id is decided on')
  const own = await runStage(deps, resume(alice, 'session_id=draft&tools='))
  t.equal(await plannedBody(own), 'session_id=draft&tools=', 'the owner: sent as it came')
})

void t.test('nothing to refuse: forwarded as it came', async (t) => {
  const { deps } = await setup()
  for (const session of ['published', 'fraction', 'unstamped', 'no-metadata', 'elsewhere', '']) {
    const plan = await runStage(deps, resume(bob, `session_id=${session}`))
    t.equal(await plannedBody(plan), `session_id=${session}`, session || 'an empty session')
  }
  const admin = await runStage(deps, resume(jwtPrincipal([ADMIN], 'root'), 'session_id=draft'))
  t.equal(admin, PASS_THROUGH, 'privileged: nothing read')
})

void t.test('a run the upstream does not answer for: refused (502)', async (t) => {
  const { deps } = await setup()
  const failed = await gatewayErrorOf(() => runStage(deps, resume(bob, 'session_id=broken')))
  t.same([failed.status, failed.reason], [502, 'handlers.run_lookup'])
})
