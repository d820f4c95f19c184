/**
 * The pure rules of the 3.0 handler checks: who sees a row (V3-COMP-1, V3-SCHED-3, V3-KNOW-1,
 * V3-OWN-1G), the ids AgentOS gives components (V3-COMP-3), what a schedule targets (V3-SCHED-1)
 * and who previews a draft (V3-DRAFT-1, V3-DRAFT-2).
 */
import { createHash } from 'node:crypto'
import t from 'tap'
import { Grants } from '../../../../src/policy/grants.js'
import { ANONYMOUS } from '../../../../src/principal.js'
import {
  generateIdFromName,
  ownerScopedComponentId,
  referencedComponents,
} from '../../../../src/surfaces/handlers/component-ids.js'
import {
  previewAllowed,
  previewIdentity,
  requestedVersions,
  scrubbedMetadata,
} from '../../../../src/surfaces/handlers/draft-preview.js'
import {
  creatorOf,
  listedFor,
  OWNED_ROWS,
  recordedIn,
  rowAccess,
} from '../../../../src/surfaces/handlers/owned-rows.js'
import {
  ONLY_ADMINS_SCHEDULE,
  runOf,
  targetOfCreate,
  targetOfUpdate,
  targetRefusal,
} from '../../../../src/surfaces/handlers/schedule-target.js'
import { SECURITY_KEY_PRINCIPAL, serviceAccountPrincipal } from '../../../helpers/principals.js'
import { jwtPrincipal } from '../helpers.js'
import { ADMIN } from './helpers.js'

void t.test('row access of a scoped caller', async (t) => {
  const { component, schedule, knowledge_content: content } = OWNED_ROWS
  t.equal(rowAccess(component, { known: true, owner: 'alice' }, 'alice'), 'own')
  t.equal(rowAccess(component, { known: true, owner: 'bob' }, 'alice'), 'hidden')
  t.equal(rowAccess(component, { known: true, owner: null }, 'alice'), 'shared')
  t.equal(rowAccess(content, { known: true, owner: null }, 'alice'), 'shared')
  t.equal(rowAccess(schedule, { known: true, owner: null }, 'alice'), 'hidden', 'own only')
  t.equal(rowAccess(component, { known: false }, 'alice'), 'hidden', 'unknown: fail closed')
  const owners = new Map<string, string | null>([
    ['a', 'alice'],
    ['s', null],
  ])
  t.same(recordedIn(owners, 's'), { known: true, owner: null })
  t.same(recordedIn(owners, 'x'), { known: false })
  t.ok(listedFor(component, owners, 'a', 'alice'))
  t.ok(listedFor(component, owners, 's', 'bob'))
  t.notOk(listedFor(component, owners, 'a', 'bob'))
  t.notOk(listedFor(component, owners, 'x', 'alice'))
  t.equal(creatorOf('sa:ci', 'sa:ci'), 'sa:ci')
  t.equal(creatorOf(null, 'root'), 'root', 'an unscoped caller stamps its own id')
  t.equal(creatorOf(null, null), null)
  t.equal(component.notFound('c1'), 'Component c1 not found')
  t.equal(schedule.notFound('s1'), 'Schedule not found')
  t.equal(content.notFound('k1'), 'Content not found: k1')
  t.equal(component.sharedRefusal('delete'), 'Cannot delete shared component')
  t.equal(content.sharedRefusal('modify'), 'Cannot modify shared content')
  t.equal(schedule.sharedRefusal('modify'), undefined)
})

void t.test('component ids as AgentOS derives them (V3-COMP-3)', async (t) => {
  t.equal(generateIdFromName('Research Agent_2'), 'research-agent-2')
  t.match(generateIdFromName(''), /^[0-9a-f-]{36}$/, 'an empty name: a random id')
  const hash = createHash('sha256').update('alice').digest('hex').slice(0, 8)
  t.equal(ownerScopedComponentId('My Bot', 'alice'), `my-bot-${hash}`)
  t.match(ownerScopedComponentId('', 'alice'), new RegExp(`^[0-9a-f-]{36}-${hash}$`))
  t.same(
    referencedComponents({
      agent_id: 'a1',
      members: [{ agent_id: 'a2' }, { team_id: 't1', nested: { workflow_id: 'w1' } }],
      again: { agent_id: 'a1' },
      not_a_string: { agent_id: 7 },
    }),
    ['a1', 'a2', 't1', 'w1'],
  )
  t.same(referencedComponents(undefined), [])
  t.same(referencedComponents('agent_id'), [])
})

void t.test('schedule targets (V3-SCHED-1)', async (t) => {
  t.same(runOf({ endpoint: '/agents/a1/runs', method: 'POST' }), { family: 'agents', id: 'a1' })
  t.same(runOf({ endpoint: '/teams/t1/runs/', method: 'post' }), { family: 'teams', id: 't1' })
  for (const [endpoint, method] of [
    ['/agents/a1/runs', 'PUT'],
    ['/agents/a1/runs\n', 'POST'],
    ['/agents/a1/runs?x=1', 'POST'],
    ['/v1/agents/a1/runs', 'POST'],
    ['/agents/a1/b/runs', 'POST'],
    ['/agents/a1/runs/r1/continue', 'POST'],
    ['/Agents/a1/runs', 'POST'],
    ['/config', 'GET'],
  ] as const) {
    t.equal(runOf({ endpoint, method }), undefined, JSON.stringify(endpoint))
  }
  const grants = new Grants(ADMIN)
  t.equal(targetRefusal(grants, [ADMIN], { endpoint: '/config', method: 'GET' }), undefined)
  t.equal(
    targetRefusal(grants, ['schedules:write'], { endpoint: '/config', method: 'GET' }),
    ONLY_ADMINS_SCHEDULE,
  )
  const run = { endpoint: '/agents/a1/runs', method: 'POST' }
  t.equal(targetRefusal(grants, ['agents:run'], run), undefined)
  t.equal(targetRefusal(grants, ['agents:a1:run'], run), undefined, 'a per-agent scope')
  t.equal(targetRefusal(grants, ['agents:*:run'], run), undefined)
  t.equal(
    targetRefusal(grants, ['agents:a2:run'], run),
    'Insufficient permissions. Required scope(s): agents:run',
  )
  t.equal(
    targetRefusal(grants, ['agents:run'], { endpoint: '/workflows/w/runs', method: 'POST' }),
    'Insufficient permissions. Required scope(s): workflows:run',
  )
})

void t.test('the target a create or an update names', async (t) => {
  t.same(targetOfCreate({ endpoint: '/agents/a/runs' }), {
    endpoint: '/agents/a/runs',
    method: 'POST',
  })
  t.same(targetOfCreate({ endpoint: '/config', method: 'GET' }), {
    endpoint: '/config',
    method: 'GET',
  })
  t.same(
    targetOfCreate({ endpoint: '/agents/a/runs', method: null }),
    { endpoint: '/agents/a/runs', method: '' },
    'a method that is not a string: no run',
  )
  t.equal(targetOfCreate({ endpoint: 7 }), undefined)
  t.equal(targetOfCreate([]), undefined)
  const stored = { endpoint: '/agents/a/runs', method: 'POST' }
  let asked = 0
  const read = async () => {
    asked += 1
    return stored
  }
  t.equal(await targetOfUpdate({ name: 'x' }, read), undefined, 'no target field')
  t.equal(await targetOfUpdate('x', read), undefined)
  t.same(await targetOfUpdate({ endpoint: '/config', method: 'GET' }, read), {
    endpoint: '/config',
    method: 'GET',
  })
  t.equal(asked, 0, 'both fields given: nothing read')
  t.same(await targetOfUpdate({ method: 'GET' }, read), {
    endpoint: stored.endpoint,
    method: 'GET',
  })
  t.same(await targetOfUpdate({ endpoint: '/teams/t/runs' }, read), {
    endpoint: '/teams/t/runs',
    method: 'POST',
  })
  t.same(await targetOfUpdate({ endpoint: null, method: 'POST' }, read), stored, 'null: stored')
  t.equal(await targetOfUpdate({ method: 'GET' }, async () => undefined), undefined)
})

void t.test('draft previews (V3-DRAFT-1, V3-DRAFT-2)', async (t) => {
  t.same(previewIdentity(jwtPrincipal([ADMIN], 'root'), ADMIN), { privileged: true, actor: null })
  t.same(previewIdentity(SECURITY_KEY_PRINCIPAL, ADMIN), { privileged: true, actor: null })
  t.same(previewIdentity(ANONYMOUS, ADMIN), { privileged: true, actor: null })
  t.same(previewIdentity(jwtPrincipal([], 'bob'), ADMIN), { privileged: false, actor: 'bob' })
  t.same(previewIdentity(jwtPrincipal(['agents:run'], null), ADMIN), {
    privileged: false,
    actor: null,
  })
  t.same(previewIdentity(serviceAccountPrincipal('ci'), ADMIN), {
    privileged: false,
    actor: 'sa:ci',
  })
  t.same(requestedVersions(['1', ' +01 ', '1_0', '2.00', '-3', '-0', 'x', '', 7, '1.5']), [
    '1',
    '10',
    '2',
    '-3',
    '0',
  ])
  t.ok(previewAllowed('absent', 'bob', { known: false }))
  t.ok(previewAllowed('published', null, { known: false }))
  t.ok(previewAllowed('draft', 'alice', { known: true, owner: 'alice' }))
  t.notOk(previewAllowed('draft', 'bob', { known: true, owner: 'alice' }))
  t.notOk(previewAllowed('draft', 'bob', { known: true, owner: null }), 'shared: admins only')
  t.notOk(previewAllowed('draft', 'bob', { known: false }), 'unknown owner: refused')
  t.notOk(previewAllowed('draft', null, { known: true, owner: null }))
})

void t.test('a version stamp in run metadata (V3-DRAFT-3)', async (t) => {
  t.equal(scrubbedMetadata(['{"a":1}']), undefined, 'no stamp: nothing to change')
  t.equal(scrubbedMetadata([]), undefined)
  t.equal(scrubbedMetadata(['{"agno_component_version":2,"a":1}']), '{"a":1}')
  t.equal(
    scrubbedMetadata(['{"agno_component_version":2}', '{"b":2}']),
    '{"b":2}',
    'an earlier copy with a stamp: the last copy, once',
  )
  t.equal(scrubbedMetadata(['{"agno_compon\\u0065nt_version":2}']), '{}', 'escaped keys read')
  t.equal(scrubbedMetadata(['{"agno_component_version": NaN}']), '', 'unreadable: emptied')
  t.equal(scrubbedMetadata(['[1]', '{"agno_component_version":1}']), '{}')
  t.equal(scrubbedMetadata(['{"agno_component_version":1}', '[1]']), '[1]', 'the last kept')
  t.equal(scrubbedMetadata(['{"x": NaN}', '{"agno_component_version":1}']), '{}')
  t.equal(scrubbedMetadata(['not json']), undefined, 'no stamp can hide in it')
})
