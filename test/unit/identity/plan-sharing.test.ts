import { PassThrough } from 'node:stream'
import t from 'tap'
import { testCatalogue } from '../../helpers/catalogue.js'
import {
  ADMIN,
  bodyText,
  enforcer,
  jwtUser,
  planInput,
  TestEnforcer,
  testConfig,
} from './helpers.js'

/** The 3.0 scheduler with these scopes, and an enforcer under isolation that reads its owner. */
function isolatedScheduler(scopes: string[]) {
  const scheduler = { ...jwtUser('__scheduler__', scopes), kind: 'scheduler' as const }
  const isolated = new TestEnforcer(
    testConfig({ auth: { user_isolation: true } }),
    'jwt',
    undefined,
    true,
  )
  return { scheduler, isolated }
}

void t.test('a principal that only needs headers gets one shared plan', async (t) => {
  const identity = enforcer()
  const alice = jwtUser('alice', ['agents:read'])
  const first = await identity.plan(planInput({ principal: alice, path: '/agents/a1' }))
  const again = await identity.plan(planInput({ principal: alice, path: '/agents/a2' }))
  t.equal(again, first, 'the same frozen plan')
  t.ok(Object.isFrozen(first))
  const bob = await identity.plan(planInput({ principal: jwtUser('bob'), path: '/agents/a1' }))
  t.not(bob, first, 'another principal, another plan')
})

void t.test('plans are kept for a bounded number of principals, then rebuilt equal', async (t) => {
  const identity = enforcer()
  const alice = jwtUser('alice')
  const first = await identity.plan(planInput({ principal: alice, path: '/agents/a1' }))
  // Far more principals than the table keeps: alice's plan is forgotten, not kept forever.
  for (let index = 0; index < 5_000; index++) {
    await identity.plan(planInput({ principal: jwtUser(`u${index}`), path: '/agents/a1' }))
  }
  const later = await identity.plan(planInput({ principal: alice, path: '/agents/a1' }))
  t.not(later, first, 'rebuilt')
  t.same(later, first, 'with the same content')
})

void t.test('a scoped caller without a query shares one plan that carries its pin', async (t) => {
  const identity = enforcer()
  const account = jwtUser('sa:ci-bot', ['sessions:read'])
  const first = await identity.plan(planInput({ principal: account, path: '/sessions' }))
  t.equal(first.query, 'user_id=sa%3Aci-bot')
  t.ok(Object.isFrozen(first))
  const again = await identity.plan(planInput({ principal: account, path: '/sessions' }))
  t.equal(again, first, 'the same plan for the next request without a query')
  const queried = await identity.plan(
    planInput({ principal: account, path: '/sessions', query: 'type=agent&user_id=someone' }),
  )
  t.equal(queried.query, 'type=agent&user_id=sa%3Aci-bot', 'a query of its own is rewritten')
  const headersOnly = await identity.plan(planInput({ principal: ADMIN, path: '/sessions' }))
  t.equal(headersOnly.query, undefined, 'an admin is not pinned')
  t.equal(
    await identity.plan(planInput({ principal: account, path: '/sessions' })),
    first,
    'still shared after a request with a query',
  )
})

void t.test('the pins are built again when what they pin changes', async (t) => {
  const identity = enforcer()
  const fork = '/agents/a1/sessions/s1/fork'
  const plan = async (path: string) =>
    (await identity.plan(planInput({ principal: ADMIN, method: 'POST', path }))).query
  t.equal(await plan(fork), 'user_id=root', 'a fork pins the unscoped caller')
  t.equal(await plan('/agents/a1/sessions/s1'), undefined, 'another route does not')
  t.equal(await plan(fork), 'user_id=root', 'the fork again')

  const { scheduler, isolated } = isolatedScheduler(['sessions:read'])
  const owned = async (owner: string) =>
    (
      await isolated.plan(
        planInput({
          principal: scheduler,
          path: '/sessions',
          catalogue: testCatalogue({ line: '3.0' }),
          headers: { 'x-schedule-owner': owner },
        }),
      )
    ).query
  t.equal(await owned('alice'), 'user_id=alice')
  t.equal(await owned('bob'), 'user_id=bob', 'another owner, other pins')
  t.equal(await owned('alice'), 'user_id=alice')
})

void t.test(
  'a plan waiting for its body keeps its own pins while another owner is planned',
  async (t) => {
    const { scheduler, isolated } = isolatedScheduler(['agents:run'])
    const catalogue = testCatalogue({ line: '3.0' })
    const run = (owner: string, body: string | PassThrough) =>
      isolated.plan(
        planInput({
          principal: scheduler,
          method: 'POST',
          path: '/agents/a1/runs',
          catalogue,
          headers: {
            'content-type': 'application/x-www-form-urlencoded',
            'x-schedule-owner': owner,
            ...(typeof body === 'string' ? {} : { 'content-length': '7' }),
          },
          body,
        }),
      )
    // Alice's form arrives late: her plan waits for it while Bob's is made in full.
    const late = new PassThrough()
    const alice = run('alice', late)
    const bob = await run('bob', 'message=hi')
    late.end('message')
    const alicePlan = await alice
    t.equal(bob.query, 'user_id=bob')
    t.equal(alicePlan.query, 'user_id=alice', "Bob's pins never reach Alice's plan")
    t.equal(await bodyText(alicePlan), 'message&user_id=alice')
  },
)
