/**
 * The handler-checks stage on its own: what it claims, where it fails closed (no owner store, a
 * store that cannot answer, an upstream lookup that fails), what it records and forgets.
 */
import t from 'tap'
import { agentosCatalogue } from '../../../../src/policy/catalogue/index.js'
import { PASS_THROUGH } from '../../../../src/upstream/forward-plan.js'
import { handlerChecksStage } from '../../../../src/surfaces/handlers/index.js'
import { OWNER_STORE_REQUIRED } from '../../../../src/surfaces/handlers/handler-context.js'
import { SCHEDULER_MAY_NOT_OWN } from '../../../../src/surfaces/handlers/ownership-check.js'
import { testCatalogue } from '../../../helpers/catalogue.js'
import { serviceAccountPrincipal } from '../../../helpers/principals.js'
import { gatewayErrorOf } from '../../auth/helpers.js'
import { jwtPrincipal } from '../helpers.js'
import {
  ADMIN,
  CATALOGUE_3_0,
  fakeLookup,
  jsonRequest,
  jsonResponse,
  MemoryOwners,
  plannedBody,
  runStage,
  stageDeps,
} from './helpers.js'

const SA = serviceAccountPrincipal('ci', ['components:write', 'schedules:write', 'agents:run'])
const SCHEDULER = {
  ...jwtPrincipal(['agents:run', 'schedules:read'], '__scheduler__'),
  kind: 'scheduler' as const,
}

void t.test('claims 3.0 routes with handler checks, nothing of 2.9', async (t) => {
  const { deps } = stageDeps()
  const stage = handlerChecksStage(deps)
  const catalogue29 = testCatalogue({ line: '2.9' })
  for (const route of agentosCatalogue('2.9').routes) {
    const method = route.method === '*' ? 'GET' : route.method
    const path = route.path.replaceAll(/\{[^}]+\}/g, 'x')
    t.notOk(stage.claimsRoute(catalogue29.match(method, path)), `2.9: ${method} ${path}`)
  }
  for (const [method, path] of [
    ['GET', '/components'],
    ['POST', '/schedules/x/trigger'],
    ['DELETE', '/knowledge/content'],
    ['POST', '/agents/a1/runs'],
    ['GET', '/workflows/w1'],
  ] as const) {
    t.ok(stage.claimsRoute(CATALOGUE_3_0.match(method, path)), `3.0: ${method} ${path}`)
  }
  t.notOk(stage.claimsRoute(CATALOGUE_3_0.match('GET', '/sessions')), 'identity check only')
  t.notOk(stage.claimsRoute(CATALOGUE_3_0.match('GET', '/queue/jobs')), 'the authorizer’s')
})

void t.test('without an owner store: scoped callers refused, others pass', async (t) => {
  const { deps } = stageDeps({ owners: undefined })
  const refused = await gatewayErrorOf(() =>
    runStage(deps, jsonRequest('GET', '/components/c1', SA)),
  )
  t.same(
    [refused.status, refused.detail, refused.reason],
    [403, OWNER_STORE_REQUIRED, 'handlers.no_owner_store'],
  )
  const unscoped = jwtPrincipal(['components:write'], 'alice')
  const plan = await runStage(
    { ...deps, userIsolation: false },
    jsonRequest('POST', '/components', unscoped, { name: 'x', component_type: 'agent' }),
  )
  t.equal(plan.rewriteResponse, undefined, 'nothing to record into')
  // A draft preview needs the owner: without a store nobody but an admin previews.
  const { lookup } = fakeLookup({
    '/components/a1/configs/1': { status: 200, value: { stage: 'draft' } },
  })
  const draft = await gatewayErrorOf(() =>
    runStage(
      { ...deps, lookup, userIsolation: false },
      jsonRequest('GET', '/workflows/a1?version=1', unscoped),
    ),
  )
  t.equal(draft.status, 404)
})

void t.test('a store that cannot answer is 503, never a pass', async (t) => {
  const owners = new MemoryOwners()
  owners.failing = true
  const { deps, logs } = stageDeps({ owners })
  const failed = await gatewayErrorOf(() => runStage(deps, jsonRequest('GET', '/schedules/s1', SA)))
  t.same([failed.status, failed.reason], [503, 'handlers.owner_store'])
  // A deletion that happened: its record not dropped is logged, the answer kept.
  const admin = jwtPrincipal([ADMIN], 'root')
  const plan = await runStage(deps, jsonRequest('DELETE', '/schedules/s1', admin))
  const answer = await plan.rewriteResponse?.(jsonResponse(null, 204))
  t.equal(answer?.status, 204)
  t.match(logs.text, /owner record of a deleted row not dropped/)
  // A creation whose owner cannot be recorded is not answered as a success.
  const create = await runStage(
    deps,
    jsonRequest('POST', '/components', admin, { name: 'x', component_type: 'agent' }),
  )
  const recorded = await gatewayErrorOf(async () =>
    create.rewriteResponse?.(jsonResponse({ component_id: 'x' }, 201)),
  )
  t.equal(recorded.status, 503)
})

void t.test('creation records the owner from the answer', async (t) => {
  const owners = new MemoryOwners()
  const { deps, logs } = stageDeps({ owners })
  const plan = await runStage(
    deps,
    jsonRequest('POST', '/components', SA, {
      name: 'Bot',
      component_id: null,
      component_type: 'agent',
    }),
  )
  const sent = JSON.parse(await plannedBody(plan)) as { component_id: string }
  t.match(sent.component_id, /^bot-[0-9a-f]{8}$/, 'a null id is AgentOS’s owner-scoped one')
  await plan.rewriteResponse?.(jsonResponse({ component_id: sent.component_id }, 201))
  t.same(await owners.ownerOf('component', sent.component_id), { known: true, owner: 'sa:ci' })
  // Not a 2xx: nothing recorded; no id in the answer: logged.
  await plan.rewriteResponse?.(jsonResponse({ component_id: 'other' }, 409))
  t.same(await owners.ownerOf('component', 'other'), { known: false })
  await plan.rewriteResponse?.(jsonResponse({ id: 'wrong-key' }, 201))
  t.match(logs.text, /created row has no id in the answer/)
  // A second record of a known id keeps the first owner and says so.
  const again = await runStage(
    deps,
    jsonRequest('POST', '/components', jwtPrincipal([ADMIN], 'root'), {
      name: 'Bot',
      component_id: sent.component_id,
      component_type: 'agent',
    }),
  )
  await again.rewriteResponse?.(jsonResponse({ component_id: sent.component_id }, 201))
  t.same(await owners.ownerOf('component', sent.component_id), { known: true, owner: 'sa:ci' })
  t.match(logs.text, /already had an owner on record/)
  // A body that is no object, or names no string: left as it is.
  for (const body of [['x'], { component_type: 'agent' }]) {
    const kept = await runStage(deps, jsonRequest('POST', '/components', SA, body))
    t.same(JSON.parse(await plannedBody(kept)), body)
  }
})

void t.test('the scheduler may not own a schedule (V3-SCHED-2)', async (t) => {
  const { deps } = stageDeps()
  const body = { name: 's', cron_expr: '* * * * *', endpoint: '/agents/a1/runs' }
  const refused = await gatewayErrorOf(() =>
    runStage(deps, jsonRequest('POST', '/schedules', SCHEDULER, body)),
  )
  t.same([refused.status, refused.detail], [403, SCHEDULER_MAY_NOT_OWN])
  // Acting for an owner under isolation, the owner would own it.
  const forOwner = jsonRequest('POST', '/schedules', SCHEDULER, body)
  const headers = { ...forOwner.inbound.headers, 'x-schedule-owner': 'alice' }
  const plan = await runStage(deps, { ...forOwner, inbound: { ...forOwner.inbound, headers } })
  t.not(plan.rewriteResponse, undefined)
})

void t.test('schedule targets read from the upstream fail closed', async (t) => {
  const { lookup, calls } = fakeLookup({
    '/schedules/s-broken': { status: 500, value: { detail: 'boom' } },
    '/schedules/s-odd': { status: 200, value: { endpoint: 7, enabled: true } },
    '/schedules/s-gone': { status: 404, value: { detail: 'Schedule not found' } },
  })
  const owners = new MemoryOwners()
  for (const id of ['s-broken', 's-odd', 's-gone', 's-down'])
    await owners.record('schedule', id, 'sa:ci')
  const { deps } = stageDeps({ owners, lookup })
  for (const id of ['s-broken', 's-odd', 's-down']) {
    const failed = await gatewayErrorOf(() =>
      runStage(deps, jsonRequest('POST', `/schedules/${id}/enable`, SA)),
    )
    t.equal(failed.status, 502, id)
  }
  t.equal(
    await runStage(deps, jsonRequest('POST', '/schedules/s-gone/trigger', SA)),
    PASS_THROUGH,
    'a schedule the upstream does not have: its own 404 to give',
  )
  calls.length = 0
  await runStage(
    deps,
    jsonRequest('POST', '/schedules/s-down/enable', jwtPrincipal([ADMIN], 'root')),
  )
  t.same(calls, [], 'an admin may schedule anything: nothing read')
  const off = jwtPrincipal(['schedules:write'], 'alice', false)
  const unchecked = await runStage(
    deps,
    jsonRequest('POST', '/schedules', off, { endpoint: '/config', method: 'GET' }),
  )
  t.equal(unchecked.body, undefined, 'authorization off: AgentOS checks no target, nothing read')
})

void t.test('rows and configs read from the upstream fail closed', async (t) => {
  const owners = new MemoryOwners()
  await owners.record('component', 'shared', null)
  const { lookup } = fakeLookup({
    '/components/shared': { status: 503, value: {} },
    '/components/stray': { status: 500, value: {} },
    '/components/a1/configs/1': { status: 500, value: {} },
  })
  const { deps } = stageDeps({ owners, lookup })
  const shared = await gatewayErrorOf(() =>
    runStage(deps, jsonRequest('PATCH', '/components/shared', SA, { name: 'x' })),
  )
  t.same([shared.status, shared.reason], [502, 'handlers.row_lookup'])
  const reference = await gatewayErrorOf(() =>
    runStage(
      deps,
      jsonRequest('POST', '/components', SA, {
        name: 'team',
        component_type: 'team',
        config: { members: [{ agent_id: 'stray' }] },
      }),
    ),
  )
  t.equal(reference.status, 502)
  const config = await gatewayErrorOf(() =>
    runStage(deps, jsonRequest('GET', '/workflows/a1?version=1', SA)),
  )
  t.same([config.status, config.reason], [502, 'handlers.config_lookup'])
})

void t.test('delete-all and listings', async (t) => {
  const { deps } = stageDeps({ userIsolation: false })
  const alice = jwtPrincipal(['knowledge:delete'], 'alice')
  const plan = await runStage(deps, jsonRequest('DELETE', '/knowledge/content', alice))
  t.equal(plan.rewriteResponse, undefined, 'an unscoped caller deletes all, as AgentOS lets it')
  const refused = await gatewayErrorOf(() =>
    runStage(deps, jsonRequest('DELETE', '/knowledge/content', SA)),
  )
  t.same([refused.status, refused.detail], [403, 'Cannot delete shared content'])
  const head = await runStage(deps, jsonRequest('HEAD', '/components', SA))
  t.equal(head.rewriteResponse, undefined, 'a HEAD answer has no rows')
})
