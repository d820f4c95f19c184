import t from 'tap'
import { enforcer, jwtUser, planInput } from './helpers.js'

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
