import t from 'tap'
import type { Principal } from '../../../src/principal.js'
import { testCatalogue } from '../../helpers/catalogue.js'
import { bodyText, jwtUser, planInput, refusal, TestEnforcer, testConfig } from './helpers.js'

const FORM = { 'content-type': 'application/x-www-form-urlencoded' }
const catalogue = testCatalogue({ line: '3.0' })
const SCHEDULER: Principal = {
  ...jwtUser('__scheduler__', ['agents:run', 'agents:read']),
  kind: 'scheduler',
}

function enforcer(userIsolation: boolean, scheduleOwnerHeader = true): TestEnforcer {
  const config = testConfig({ auth: { user_isolation: userIsolation } })
  return new TestEnforcer(config, 'jwt', undefined, scheduleOwnerHeader)
}

function run(
  principal: Principal,
  headers: Record<string, string>,
  body = 'user_id=owner-in-form',
) {
  return planInput({
    principal,
    method: 'POST',
    path: '/agents/a1/runs',
    catalogue,
    headers: { ...FORM, ...headers },
    body,
  })
}

void t.test(
  '3.0 under isolation: the scheduler acts as the owner it names (V3-ISO-3)',
  async (t) => {
    const isolated = enforcer(true)
    const owned = await isolated.plan(run(SCHEDULER, { 'x-schedule-owner': 'al%C3%AFce' }))
    t.equal(await bodyText(owned), `user_id=${encodeURIComponent('alïce')}`)
    const read = await isolated.plan(
      planInput({
        principal: SCHEDULER,
        method: 'GET',
        path: '/agents/a1/runs/r1',
        query: 'session_id=s1&user_id=someone',
        catalogue,
        headers: { 'x-schedule-owner': 'alice' },
      }),
    )
    t.equal(read.query, 'session_id=s1&user_id=alice', 'reads are scoped to the owner')
    const unowned = await isolated.plan(run(SCHEDULER, {}))
    t.equal(unowned.body, undefined, 'no owner: unscoped, the form kept as the executor wrote it')
  },
)

void t.test('3.0 without isolation: the scheduler is unscoped, its form kept', async (t) => {
  const plan = await enforcer(false).plan(run(SCHEDULER, { 'x-schedule-owner': 'alice' }))
  t.equal(plan.body, undefined)
})

void t.test('the header names nobody for anyone but the 3.0 scheduler', async (t) => {
  const isolated = enforcer(true)
  const user = jwtUser('bob', ['agents:run'])
  const plan = await isolated.plan(run(user, { 'x-schedule-owner': 'alice' }))
  t.equal(await bodyText(plan), 'user_id=bob', 'a user runs as itself')
  t.ok(isolated.identityHeaderNames.has('x-schedule-owner'), 'a client copy never goes upstream')
  const v29 = await enforcer(true, false).plan(run(SCHEDULER, { 'x-schedule-owner': 'alice' }))
  t.equal(await bodyText(v29), 'user_id=__scheduler__', '2.9: the scheduler is itself')
  const bad = await refusal(() => isolated.plan(run(SCHEDULER, { 'x-schedule-owner': '%E0%A4%A' })))
  t.same([bad.status, bad.detail], [400, 'Invalid X-Schedule-Owner header'])
})
