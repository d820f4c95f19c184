import t from 'tap'
import { ADMIN, enforcer, jwtUser, planInput, refusal, serviceAccount } from './helpers.js'

const isolated = () => enforcer({ auth: { user_isolation: true } })
const alice = jwtUser('alice', ['sessions:read'])

void t.test('ISO-3: learnings refuse another user for scoped callers (ISO-3)', async (t) => {
  const gateway = isolated()
  const refusals: [string, string, string][] = [
    ['GET', '/learnings', 'Cannot list learnings for another user'],
    ['GET', '/learnings/users', 'Cannot list learning users for another user'],
    ['POST', '/learnings', 'Cannot create learnings for another user'],
    ['DELETE', '/learnings/l1', 'Cannot delete learnings for another user'],
    ['DELETE', '/learnings', 'Cannot delete learnings for another user'],
  ]
  for (const [method, path, text] of refusals) {
    const error = await refusal(() =>
      gateway.plan(planInput({ principal: alice, method, path, query: 'user_id=zzz' })),
    )
    t.equal(error.status, 403, `${method} ${path}`)
    t.equal(error.detail, text)
  }
  const own = await gateway.plan(
    planInput({ principal: alice, path: '/learnings', query: 'user_id=alice&limit=5' }),
  )
  t.equal(own.query, 'limit=5&user_id=alice')
  const none = await gateway.plan(planInput({ principal: alice, path: '/learnings' }))
  t.equal(none.query, 'user_id=alice', 'pinned when absent')
  const admin = await gateway.plan(
    planInput({ principal: ADMIN, path: '/learnings', query: 'user_id=zzz' }),
  )
  t.equal(admin.query, undefined)
  const jsonBody = await refusal(() =>
    gateway.plan(
      planInput({
        principal: alice,
        method: 'POST',
        path: '/learnings',
        headers: { 'content-type': 'application/json' },
        body: '{"content":"x","user_id":"zzz"}',
      }),
    ),
  )
  t.equal(jsonBody.detail, 'Cannot create learnings for another user')
})

void t.test('ISO-3: scoped cancel/continue/resume need a session_id (ISO-3, ISO-1)', async (t) => {
  const gateway = isolated()
  for (const family of ['agents', 'teams', 'workflows']) {
    for (const action of ['cancel', 'continue', 'resume']) {
      const path = `/${family}/x1/runs/r1/${action}`
      const error = await refusal(() =>
        gateway.plan(planInput({ principal: alice, method: 'POST', path })),
      )
      t.equal(error.status, 400, path)
      t.equal(error.detail, 'session_id is required for this action')
      const empty = await refusal(() =>
        gateway.plan(planInput({ principal: alice, method: 'POST', path, query: 'session_id=' })),
      )
      t.equal(empty.status, 400, `${path}: empty`)
      const given = await gateway.plan(
        planInput({ principal: alice, method: 'POST', path, query: 'session_id=s1' }),
      )
      t.equal(given.query, 'session_id=s1&user_id=alice')
    }
  }
  const pat = await refusal(() =>
    enforcer().plan(
      planInput({
        principal: serviceAccount('d'),
        method: 'POST',
        path: '/agents/a1/runs/r/cancel',
      }),
    ),
  )
  t.equal(pat.detail, 'session_id is required for this action', '138: PATs are always scoped')
  const path = '/agents/a1/runs/r/cancel'
  const admin = await gateway.plan(planInput({ principal: ADMIN, method: 'POST', path }))
  t.equal(admin.query, undefined, '156: admin passes')
  const off = await enforcer().plan(planInput({ principal: alice, method: 'POST', path }))
  t.equal(off.query, undefined, '158: isolation off passes')
  const claim = await gateway.plan(
    planInput({
      principal: jwtUser('alice', [], { sessionId: 's9' }),
      method: 'POST',
      path: '/agents/a1/runs/r/continue',
    }),
  )
  t.same(claim.query, 'user_id=alice', 'continue: the JWT session_id claim supplies the session')
})
